// Safetensors files: header parsing and validation (torch-free), and memory-mapped access.
// Every inconsistency (truncated file, header length beyond the file, offsets out of range or
// overlapping, unknown dtype, size not matching the shape) is an error naming the file and
// tensor, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ripplekv {

enum class StDtype { F32, F16, BF16 };
const char* st_dtype_name(StDtype d);
int64_t st_dtype_size(StDtype d);

struct StTensorInfo {
  std::string name;
  StDtype dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets relative to the data section
  uint64_t end = 0;
};

// A read-only mapping of one .safetensors file with its validated tensor table.
class SafetensorsFile {
 public:
  explicit SafetensorsFile(const std::string& path);
  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::map<std::string, StTensorInfo>& tensors() const { return tensors_; }
  const void* data(const StTensorInfo& t) const { return data_ + t.begin; }
  // Drops the pages holding a tensor's bytes from this process's resident memory (the kernel
  // keeps them in its page cache; reading data(t) again faults them back in). For a loader
  // that has copied the tensor: without it, loading holds every page of the file resident
  // beside the converted weights until the file is closed (Qwen2.5-Coder-1.5B stored in
  // float32: 7.1 GB of file pages beside 3.1 GB of bfloat16 weights).
  void release(const StTensorInfo& t) const;

 private:
  std::string path_;
  const uint8_t* base_ = nullptr;
  size_t size_ = 0;
  const uint8_t* data_ = nullptr;
  std::map<std::string, StTensorInfo> tensors_;
};

// Parses and validates a header (the JSON after the 8-byte length), given the data section's
// size. Exposed for tests.
std::map<std::string, StTensorInfo> parse_safetensors_header(const std::string& header_json, uint64_t data_size,
                                                             const std::string& source);

// All shards of a checkpoint directory: model.safetensors, or the shards listed by
// model.safetensors.index.json. A tensor found in two shards is an error.
class SafetensorsCheckpoint {
 public:
  explicit SafetensorsCheckpoint(const std::string& model_dir);
  struct Entry {
    const SafetensorsFile* file;
    const StTensorInfo* info;
  };
  const std::map<std::string, Entry>& tensors() const { return index_; }
  std::string describe() const;  // file list for error messages

 private:
  std::vector<std::unique_ptr<SafetensorsFile>> files_;
  std::map<std::string, Entry> index_;
};

}  // namespace ripplekv
