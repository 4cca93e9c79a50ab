#include "eval/run_state.h"
#include "models/io/json_error.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace ripplekv::eval {
namespace fs = std::filesystem;
namespace {

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the file for reading", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void warn_or_print(const WarningSink& warn, const std::string& message) {
  if (warn) {
    warn(message);
  } else {
    fmt::print(stderr, "warning: {}\n", message);
  }
}

struct ParsedFile {
  std::vector<std::string> ids;
  std::vector<std::string> lines;  // the complete lines, without their newline
  std::size_t keep_bytes = 0;      // bytes up to the end of the last good line
  std::optional<std::string> dropped;  // why the last line was dropped
};

// Splits into lines; all but a torn/unparseable last line must be prediction lines with a
// unique "_id".
ParsedFile parse_prediction_text(const fs::path& path, const std::string& text, const std::string& key = "pred") {
  ParsedFile out;
  std::unordered_map<std::string, std::size_t> first_line;
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const auto nl = text.find('\n', pos);
    const bool complete = nl != std::string::npos;
    const std::size_t end = complete ? nl : text.size();
    std::string line = text.substr(pos, end - pos);
    const std::size_t next = complete ? nl + 1 : text.size();
    const bool last = next >= text.size();
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!complete) {
      out.dropped = fmt::format("{}:{}: the last line is torn (no newline: the run was killed while writing it)",
                                path.string(), line_no);
      break;
    }
    if (line.find_first_not_of(" \t") == std::string::npos) {
      pos = next;
      out.keep_bytes = next;
      continue;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception& e) {
      if (last) {
        out.dropped = fmt::format("{}:{}: the last line is not valid JSON ({})", path.string(), line_no, json_error_text(e));
        break;
      }
      throw std::runtime_error(fmt::format(
          "{}:{}: not valid JSON ({}); the predictions file is damaged: delete that line (its sample will be "
          "redone) and run again",
          path.string(), line_no, json_error_text(e)));
    }
    const auto id = j.is_object() ? j.find("_id") : j.end();
    if (!j.is_object() || id == j.end() || !id->is_string() || !j.contains(key)) {
      throw std::runtime_error(fmt::format(
          "{}:{}: not a ripplekv {} line (needs \"{}\" and a string \"_id\"); this file was not written "
          "by ripplekv for this task: move it away or use another --out",
          path.string(), line_no, key == "pred" ? "prediction" : "record", key));
    }
    const std::string sid = id->get<std::string>();
    const auto [it, inserted] = first_line.emplace(sid, line_no);
    if (!inserted) {
      throw std::runtime_error(fmt::format(
          "{}:{}: sample _id \"{}\" already finished on line {}; delete one of the two lines and run again",
          path.string(), line_no, sid, it->second));
    }
    out.ids.push_back(sid);
    out.lines.push_back(std::move(line));
    pos = next;
    out.keep_bytes = next;
  }
  return out;
}

void write_fully(int fd, const std::string& data, const fs::path& path) {
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("{}: write failed: {}", path.string(), std::strerror(errno)));
    }
    done += static_cast<std::size_t>(n);
  }
}

std::string different_lines(const fs::path& a, const fs::path& b, const std::string& id) {
  return fmt::format("{} and {} hold different predictions for sample _id \"{}\" (two runs made them): keep one, "
                     "move the other out of the folder, and rerun to redo what it held",
                     a.string(), b.string(), id);
}

struct HeldLine {
  std::string line;
  fs::path path;  // the file that holds it
};

// The finished lines of the files at `paths` that exist (a torn last line ignored), by id: the
// first file's where several hold one id; with `agree`, files holding different lines for one
// id throw, naming both.
std::unordered_map<std::string, HeldLine> held_lines(const std::vector<fs::path>& paths, const std::string& key,
                                                     bool agree) {
  std::unordered_map<std::string, HeldLine> out;
  for (const auto& path : paths) {
    if (!fs::exists(path)) continue;
    auto part = parse_prediction_text(path, read_all(path), key);
    for (std::size_t l = 0; l < part.ids.size(); ++l) {
      const auto [it, fresh] = out.try_emplace(part.ids[l], HeldLine{part.lines[l], path});
      if (!fresh && agree && it->second.line != part.lines[l]) {
        throw std::runtime_error(different_lines(it->second.path, path, it->first));
      }
    }
  }
  return out;
}

std::vector<fs::path> shard_paths(const fs::path& out_dir, const std::string& task, int shard_count) {
  std::vector<fs::path> out;
  for (int i = 0; i < shard_count; ++i) out.push_back(prediction_path(out_dir, task, Shard{i, shard_count}));
  return out;
}

}  // namespace

Shard parse_shard(const std::string& text) {
  static const std::regex re(R"(\s*(\d+)\s*/\s*(\d+)\s*)");
  std::smatch m;
  if (!std::regex_match(text, m, re)) {
    throw std::invalid_argument(fmt::format("--shard \"{}\": expected i/n, e.g. 0/4 for the first of four shards", text));
  }
  Shard s;
  try {
    s.index = std::stoi(m[1]);
    s.count = std::stoi(m[2]);
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("--shard \"{}\": numbers out of range", text));
  }
  if (s.count < 1 || s.index >= s.count) {
    throw std::invalid_argument(fmt::format("--shard \"{}\": need 0 <= i < n (shards are numbered from 0)", text));
  }
  return s;
}

fs::path prediction_path(const fs::path& out_dir, const std::string& task, const Shard& shard) {
  if (shard.is_whole()) return out_dir / (task + ".jsonl");
  return out_dir / "shards" / fmt::format("{}.shard-{}-of-{}.jsonl", task, shard.index, shard.count);
}

std::string prediction_line(const Sample& sample, const std::string& pred) {
  nlohmann::ordered_json j;
  j["pred"] = pred;
  j["answers"] = sample.answers;
  j["all_classes"] =
      sample.all_classes ? nlohmann::ordered_json(*sample.all_classes) : nlohmann::ordered_json(nullptr);
  j["length"] = sample.length ? nlohmann::ordered_json(*sample.length) : nlohmann::ordered_json(nullptr);
  j["_id"] = sample.id;
  return j.dump(-1, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

PredictionFile::PredictionFile(fs::path path, const WarningSink& warn, const std::string& required_key)
    : path_(std::move(path)) {
  if (path_.has_parent_path()) fs::create_directories(path_.parent_path());
  if (fs::exists(path_)) {
    const std::string text = read_all(path_);
    auto parsed = parse_prediction_text(path_, text, required_key);
    if (parsed.dropped) {
      warn_or_print(warn, *parsed.dropped + "; dropped, that sample will be redone");
      fs::resize_file(path_, parsed.keep_bytes);
      dropped_torn_line_ = true;
    } else if (parsed.keep_bytes != text.size()) {
      fs::resize_file(path_, parsed.keep_bytes);
    }
    ids_ = std::move(parsed.ids);
    for (std::size_t i = 0; i < ids_.size(); ++i) line_of_.emplace(ids_[i], i);
  }
  fd_ = ::open(path_.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    throw std::runtime_error(fmt::format("{}: cannot open for appending: {}", path_.string(), std::strerror(errno)));
  }
}

PredictionFile::~PredictionFile() {
  if (fd_ >= 0) ::close(fd_);
}

void PredictionFile::append(const Sample& sample, const std::string& pred) {
  append_line(sample.id, prediction_line(sample, pred));
}

void PredictionFile::append_line(const std::string& id, const std::string& line) {
  if (has(id)) {
    throw std::logic_error(fmt::format("{}: sample _id \"{}\" is already finished", path_.string(), id));
  }
  write_fully(fd_, line + "\n", path_);
  if (::fdatasync(fd_) != 0 && errno != EINVAL) {
    throw std::runtime_error(fmt::format("{}: flushing to disk failed: {}", path_.string(), std::strerror(errno)));
  }
  line_of_.emplace(id, ids_.size());
  ids_.push_back(id);
}

std::optional<std::vector<std::string>> read_prediction_ids(const fs::path& path, const std::string& required_key) {
  if (!fs::exists(path)) return std::nullopt;
  return parse_prediction_text(path, read_all(path), required_key).ids;
}

bool prediction_file_complete(const fs::path& path, const std::vector<std::string>& expected_ids) {
  const auto ids = read_prediction_ids(path);
  if (!ids || ids->size() != expected_ids.size()) return false;
  const std::set<std::string> have(ids->begin(), ids->end());
  for (const auto& id : expected_ids) {
    if (!have.count(id)) return false;
  }
  return true;
}

std::vector<std::string> shard_ids(const std::vector<std::string>& all_ids, const Shard& shard) {
  std::vector<std::string> out;
  for (std::size_t k = 0; k < all_ids.size(); ++k) {
    if (shard.owns(k)) out.push_back(all_ids[k]);
  }
  return out;
}

fs::path merge_shards(const fs::path& out_dir, const std::string& task, int shard_count,
                      const std::vector<std::string>& expected_ids) {
  if (shard_count < 1) throw std::invalid_argument("merge_shards: shard_count must be >= 1");
  std::unordered_map<std::string, std::size_t> index_of;
  for (std::size_t k = 0; k < expected_ids.size(); ++k) {
    if (!index_of.emplace(expected_ids[k], k).second) {
      throw std::runtime_error(fmt::format("{}: the task's data has the sample _id \"{}\" twice; ids must be unique",
                                           task, expected_ids[k]));
    }
  }
  std::vector<const std::string*> line_for(expected_ids.size(), nullptr);
  std::vector<ParsedFile> parsed(static_cast<std::size_t>(shard_count));
  for (int i = 0; i < shard_count; ++i) {
    const Shard shard{i, shard_count};
    const auto path = prediction_path(out_dir, task, shard);
    if (!fs::exists(path)) {
      throw std::runtime_error(fmt::format("{}: missing; run `ripplekv longbench ... --shard {}/{}` to produce it",
                                           path.string(), i, shard_count));
    }
    parsed[static_cast<std::size_t>(i)] = parse_prediction_text(path, read_all(path));
    const auto& file = parsed[static_cast<std::size_t>(i)];
    if (file.dropped) {
      throw std::runtime_error(*file.dropped + fmt::format("; resume shard {}/{} to finish it", i, shard_count));
    }
    for (std::size_t l = 0; l < file.ids.size(); ++l) {
      const auto it = index_of.find(file.ids[l]);
      if (it == index_of.end()) {
        throw std::runtime_error(fmt::format("{}: sample _id \"{}\" is not in the task's data (or beyond "
                                             "--max-samples); was this shard run on other data?",
                                             path.string(), file.ids[l]));
      }
      if (!shard.owns(it->second)) {
        throw std::runtime_error(fmt::format("{}: sample _id \"{}\" (index {}) belongs to shard {}/{}, not {}/{}",
                                             path.string(), file.ids[l], it->second,
                                             it->second % static_cast<std::size_t>(shard_count), shard_count, i,
                                             shard_count));
      }
      if (line_for[it->second]) {
        throw std::runtime_error(
            fmt::format("{}: sample _id \"{}\" appears twice across the shard files", path.string(), file.ids[l]));
      }
      line_for[it->second] = &file.lines[l];
    }
  }
  for (std::size_t k = 0; k < expected_ids.size(); ++k) {
    if (!line_for[k]) {
      const Shard owner{static_cast<int>(k % static_cast<std::size_t>(shard_count)), shard_count};
      throw std::runtime_error(fmt::format("{}: sample _id \"{}\" (index {}) is missing; resume shard {}/{} to finish it",
                                           prediction_path(out_dir, task, owner).string(), expected_ids[k], k,
                                           owner.index, shard_count));
    }
  }
  const auto target = prediction_path(out_dir, task, Shard{});
  const auto tmp = fs::path(target.string() + fmt::format(".tmp-{}", ::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    for (const auto* line : line_for) out << *line << '\n';
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write the merged predictions", tmp.string()));
  }
  fs::rename(tmp, target);
  return target;
}

std::optional<std::string> whole_and_shards_disagree(const fs::path& out_dir, const std::string& task,
                                                     int shard_count) {
  const auto whole = prediction_path(out_dir, task, Shard{});
  const auto file = parse_prediction_text(whole, read_all(whole));
  const auto shard_line = held_lines(shard_paths(out_dir, task, shard_count), "pred", false);
  for (std::size_t l = 0; l < file.ids.size(); ++l) {
    const auto it = shard_line.find(file.ids[l]);
    if (it != shard_line.end() && it->second.line != file.lines[l]) {
      return different_lines(whole, it->second.path, file.ids[l]);
    }
  }
  return std::nullopt;
}

std::unordered_map<std::string, std::string> predictions_in_other_files(const fs::path& out_dir,
                                                                        const std::string& task, const Shard& shard,
                                                                        const std::string& required_key) {
  std::vector<fs::path> others;
  if (shard.is_whole()) {
    for (const int n : shard_counts_present(out_dir, task)) {
      const auto paths = shard_paths(out_dir, task, n);
      others.insert(others.end(), paths.begin(), paths.end());
    }
  } else {
    others.push_back(prediction_path(out_dir, task, Shard{}));
  }
  std::unordered_map<std::string, std::string> out;
  for (auto& [id, held] : held_lines(others, required_key, true)) out.emplace(id, std::move(held.line));
  return out;
}

std::vector<int> shard_counts_present(const fs::path& out_dir, const std::string& task) {
  std::set<int> counts;
  const auto dir = out_dir / "shards";
  if (!fs::is_directory(dir)) return {};
  const std::regex re(R"((.+)\.shard-(\d+)-of-(\d+)\.jsonl)");
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, re) && m[1] == task) counts.insert(std::stoi(m[3]));
  }
  return {counts.begin(), counts.end()};
}

std::optional<int> sole_shard_count(const fs::path& out_dir, const std::string& task) {
  const auto counts = shard_counts_present(out_dir, task);
  if (counts.empty()) return std::nullopt;
  if (counts.size() > 1) {
    throw std::runtime_error(fmt::format("{}/shards: {} has shard files of {} shard counts ({}); a folder holds one "
                                         "way of sharding: move the {}.shard-*-of-m.jsonl files of every count m but "
                                         "the one to keep out of shards/, finish that count's shards, then rerun any "
                                         "shard's command to merge and score",
                                         out_dir.string(), task, counts.size(), fmt::join(counts, ", "), task));
  }
  return counts.front();
}

void check_shard_count(const fs::path& out_dir, const std::string& task, const Shard& shard) {
  if (shard.is_whole()) return;
  std::vector<int> others;
  for (const int m : shard_counts_present(out_dir, task)) {
    if (m != shard.count) others.push_back(m);
  }
  if (others.empty()) return;
  const int m = others.front();  // several only when the folder is already unmergeable
  throw std::runtime_error(fmt::format(
      "{}/shards holds {}'s files of {} shards, and this run is --shard {}/{}: rerun with --shard i/{} (each i from 0 "
      "to {}) to finish that sharding; or, to go on with {} shards, move {}.shard-*-of-{}.jsonl out of the folder "
      "(the samples {}.jsonl holds are then copied from it, the others redone)",
      out_dir.string(), task, fmt::join(others, " and "), shard.index, shard.count, m, m - 1, shard.count, task,
      m, task));
}

bool complete_or_merge(const fs::path& out_dir, const std::string& task, const std::vector<std::string>& expected_ids) {
  if (prediction_file_complete(prediction_path(out_dir, task, Shard{}), expected_ids)) return true;
  const auto n = sole_shard_count(out_dir, task);
  if (!n) return false;
  for (int i = 0; i < *n; ++i) {
    const Shard shard{i, *n};
    if (!prediction_file_complete(prediction_path(out_dir, task, shard), shard_ids(expected_ids, shard))) return false;
  }
  if (fs::exists(prediction_path(out_dir, task, Shard{}))) {  // the merge replaces it: only an agreeing one
    if (const auto conflict = whole_and_shards_disagree(out_dir, task, *n)) throw std::runtime_error(*conflict);
  }
  merge_shards(out_dir, task, *n, expected_ids);
  return true;
}

}  // namespace ripplekv::eval
