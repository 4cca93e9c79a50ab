#include "models/loaders/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "models/io/input_file.h"
#include "models/io/json_error.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace ripplekv {

using nlohmann::json;
namespace fs = std::filesystem;

const char* st_dtype_name(StDtype d) {
  switch (d) {
    case StDtype::F32: return "F32";
    case StDtype::F16: return "F16";
    case StDtype::BF16: return "BF16";
  }
  return "?";
}

int64_t st_dtype_size(StDtype d) { return d == StDtype::F32 ? 4 : 2; }

std::map<std::string, StTensorInfo> parse_safetensors_header(const std::string& header, uint64_t data_size,
                                                             const std::string& source) {
  json j;
  try {
    j = json::parse(header);
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: the safetensors header is not valid JSON ({}); the file is corrupt "
                                         "or not a safetensors file", source, e.what()));
  }
  if (!j.is_object()) throw std::runtime_error(fmt::format("{}: the safetensors header is not a JSON object", source));
  std::map<std::string, StTensorInfo> out;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& v = it.value();
    const std::string where = fmt::format("{}: tensor \"{}\"", source, it.key());
    if (!v.is_object() || !v.contains("dtype") || !v.contains("shape") || !v.contains("data_offsets")) {
      throw std::runtime_error(where + ": entry needs dtype, shape and data_offsets");
    }
    StTensorInfo t;
    t.name = it.key();
    const auto dt = v["dtype"].is_string() ? v["dtype"].get<std::string>() : std::string("?");
    if (dt == "F32") t.dtype = StDtype::F32;
    else if (dt == "F16") t.dtype = StDtype::F16;
    else if (dt == "BF16") t.dtype = StDtype::BF16;
    else throw std::runtime_error(fmt::format("{}: dtype \"{}\" is not supported (F32, F16, BF16)", where, dt));
    if (!v["shape"].is_array()) throw std::runtime_error(where + ": shape must be a list");
    uint64_t numel = 1;
    for (const auto& s : v["shape"]) {
      if (!s.is_number_unsigned()) throw std::runtime_error(where + ": shape entries must be non-negative integers");
      t.shape.push_back(s.get<int64_t>());
      numel *= s.get<uint64_t>();
    }
    const auto& off = v["data_offsets"];
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      throw std::runtime_error(where + ": data_offsets must be [begin, end]");
    }
    t.begin = off[0].get<uint64_t>();
    t.end = off[1].get<uint64_t>();
    if (t.end < t.begin || t.end > data_size) {
      throw std::runtime_error(fmt::format("{}: data_offsets [{}, {}] are outside the data section ({} bytes); the "
                                           "file is truncated or corrupt", where, t.begin, t.end, data_size));
    }
    if (t.end - t.begin != numel * static_cast<uint64_t>(st_dtype_size(t.dtype))) {
      throw std::runtime_error(fmt::format("{}: {} bytes stored but shape x dtype needs {}", where, t.end - t.begin,
                                           numel * st_dtype_size(t.dtype)));
    }
    ranges.emplace_back(t.begin, t.end);
    out.emplace(t.name, std::move(t));
  }
  // As the safetensors library validates: the tensors tile the data section exactly, from
  // byte 0 to its end, with no gap or overlap. A header length cut short by a byte or two still
  // parses as JSON (the header ends in padding) but shifts every tensor: this catches it.
  std::sort(ranges.begin(), ranges.end());
  uint64_t expected = 0;
  for (const auto& [begin, end] : ranges) {
    if (begin < expected) {
      throw std::runtime_error(fmt::format("{}: two tensors overlap in the data section; the file is corrupt", source));
    }
    if (begin > expected) {
      throw std::runtime_error(fmt::format("{}: bytes {}..{} of the data section belong to no tensor; the header or the "
                                           "data is damaged (re-download or re-convert the file)", source, expected, begin));
    }
    expected = end;
  }
  if (expected != data_size) {
    throw std::runtime_error(fmt::format(
        "{}: the tensors end at byte {} of the data section but it has {} bytes; the header length field or the file "
        "is damaged (re-download or re-convert the file)", source, expected, data_size));
  }
  return out;
}

SafetensorsFile::SafetensorsFile(const std::string& path) : path_(path) {
  require_input_file(path, "a .safetensors weights file");
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot open ({})", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw std::runtime_error(fmt::format("{}: cannot stat", path));
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ < 8) {
    ::close(fd);
    throw std::runtime_error(fmt::format("{}: {} bytes is too short for a safetensors file (truncated?)", path, size_));
  }
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) throw std::runtime_error(fmt::format("{}: mmap failed ({})", path, std::strerror(errno)));
  base_ = static_cast<const uint8_t*>(p);
  try {
    uint64_t header_len = 0;
    std::memcpy(&header_len, base_, 8);  // little-endian u64
    if (header_len > size_ - 8) {
      throw std::runtime_error(fmt::format("{}: header length {} is larger than the file ({} bytes); the file is "
                                           "truncated or not a safetensors file", path, header_len, size_));
    }
    data_ = base_ + 8 + header_len;
    const std::string header(reinterpret_cast<const char*>(base_ + 8), header_len);
    tensors_ = parse_safetensors_header(header, size_ - 8 - header_len, path);
  } catch (...) {
    ::munmap(const_cast<uint8_t*>(base_), size_);
    throw;
  }
}

void SafetensorsFile::release(const StTensorInfo& t) const {
  static const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto first = reinterpret_cast<uintptr_t>(data_ + t.begin) / page * page;
  const auto last = reinterpret_cast<uintptr_t>(data_ + t.end);
  if (t.end <= t.begin || page == 0) return;
  // Advice only: a failure leaves the pages resident, as without it.
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
}

SafetensorsFile::~SafetensorsFile() {
  if (base_) ::munmap(const_cast<uint8_t*>(base_), size_);
}

SafetensorsCheckpoint::SafetensorsCheckpoint(const std::string& model_dir) {
  const fs::path dir(model_dir);
  const auto single = dir / "model.safetensors";
  const auto index = dir / "model.safetensors.index.json";
  std::vector<std::string> shard_names;
  if (fs::exists(index)) {
    require_input_file(index.string(), "the JSON index of a sharded safetensors checkpoint");
    std::ifstream in(index);
    json j;
    try {
      j = json::parse(in);
    } catch (const json::parse_error& e) {
      throw std::runtime_error(fmt::format("{}: not valid JSON ({})", index.string(), json_error_text(e)));
    }
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object()) {
      throw std::runtime_error(fmt::format("{}: missing \"weight_map\"", index.string()));
    }
    std::set<std::string> names;
    for (auto it = j["weight_map"].begin(); it != j["weight_map"].end(); ++it) {
      const auto& file = it.value();
      if (!file.is_string() || file.get<std::string>().empty() ||
          fs::path(file.get<std::string>()).filename() != fs::path(file.get<std::string>())) {
        throw std::runtime_error(fmt::format("{}: weight_map[\"{}\"] = {} must be the name of a .safetensors file "
                                             "beside the index",
                                             index.string(), it.key(), file.dump()));
      }
      names.insert(file.get<std::string>());
    }
    shard_names.assign(names.begin(), names.end());
  } else if (fs::exists(single)) {
    shard_names.push_back("model.safetensors");
  } else {
    throw std::runtime_error(fmt::format(
        "{}: no model.safetensors or model.safetensors.index.json; point --model at a Hugging Face checkpoint "
        "directory (PyTorch .bin checkpoints are not supported: convert them with save_pretrained(..., "
        "safe_serialization=True))", model_dir));
  }
  for (const auto& name : shard_names) {
    files_.push_back(std::make_unique<SafetensorsFile>((dir / name).string()));
    const auto* f = files_.back().get();
    for (const auto& [tname, info] : f->tensors()) {
      auto [it, inserted] = index_.emplace(tname, Entry{f, &info});
      if (!inserted) {
        throw std::runtime_error(fmt::format("{}: tensor \"{}\" is stored in both {} and {}", model_dir, tname,
                                             it->second.file->path(), f->path()));
      }
    }
  }
}

std::string SafetensorsCheckpoint::describe() const {
  std::ostringstream s;
  for (size_t i = 0; i < files_.size(); ++i) s << (i ? ", " : "") << files_[i]->path();
  return s.str();
}

}  // namespace ripplekv
