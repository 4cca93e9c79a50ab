#include "eval/kept_tokens_log.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ripplekv::eval {
namespace fs = std::filesystem;

fs::path kept_tokens_path(const fs::path& out_dir, const std::string& task, const Shard& shard) {
  if (shard.is_whole()) return out_dir / "kept" / (task + ".jsonl");
  return out_dir / "kept" / fmt::format("{}.shard-{}-of-{}.jsonl", task, shard.index, shard.count);
}

void append_kept_tokens(const fs::path& out_dir, const std::string& task, const Shard& shard,
                        const std::string& sample_id, int64_t prompt_tokens, bool compressed,
                        const std::vector<int64_t>& kept) {
  const auto path = kept_tokens_path(out_dir, task, shard);
  fs::create_directories(path.parent_path());
  nlohmann::ordered_json j;
  j["_id"] = sample_id;
  j["prompt_tokens"] = prompt_tokens;
  j["compressed"] = compressed;
  j["kept"] = kept;
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  // A line torn by a full disk or a kill has no newline: start a fresh line after it, so the
  // torn one stays a line of its own that readers skip, instead of spoiling this one.
  if (fs::is_regular_file(path) && fs::file_size(path) > 0) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(-1, std::ios::end);
    char last = '\n';
    if (in.get(last) && last != '\n') line.insert(line.begin(), '\n');
  }
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << line;
  out.flush();
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write (disk full?)", path.string()));
}

KeptTokensSummary summarize_kept_tokens(const fs::path& out_dir) {
  KeptTokensSummary s;
  // LongBench's kept/, and RULER's <length>/kept/ (a folder named by digits per prompt length).
  std::vector<std::pair<std::string, fs::path>> dirs;  // (key prefix, kept folder)
  if (fs::is_directory(out_dir / "kept")) dirs.emplace_back("", out_dir / "kept");
  if (fs::is_directory(out_dir)) {
    for (const auto& entry : fs::directory_iterator(out_dir)) {
      const auto name = entry.path().filename().string();
      const bool length = !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
        return std::isdigit(c) != 0;
      });
      if (length && entry.is_directory() && fs::is_directory(entry.path() / "kept")) {
        dirs.emplace_back(name + "/", entry.path() / "kept");
      }
    }
  }
  struct Line {
    int64_t prompt_tokens;
    bool compressed;
    std::vector<int64_t> kept;
  };
  std::map<std::string, Line> by_sample;  // "[<length>/]<task>/<id>" -> its last line
  for (const auto& [prefix, dir] : dirs) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".jsonl") continue;
      // The task is the file name up to its first '.', shards of one task share their ids.
      const auto file = entry.path().filename().string();
      const auto task = prefix + file.substr(0, file.find('.'));
      std::ifstream in(entry.path(), std::ios::binary);
      std::string text;
      while (std::getline(in, text)) {
        try {
          const auto j = nlohmann::json::parse(text);
          by_sample[task + "/" + j.at("_id").get<std::string>()] = {
              j.at("prompt_tokens").get<int64_t>(), j.at("compressed").get<bool>(),
              j.at("kept").get<std::vector<int64_t>>()};
        } catch (const std::exception&) {
          continue;  // a torn last line of a killed run
        }
      }
    }
  }
  bool any_compressed = false;
  for (const auto& [id, line] : by_sample) any_compressed = any_compressed || line.compressed;
  for (const auto& [id, line] : by_sample) {
    if (any_compressed && !line.compressed) continue;
    if (s.mean_kept.empty()) s.mean_kept.assign(line.kept.size(), 0.0);
    if (line.kept.size() != s.mean_kept.size()) continue;  // another model's line; cannot be averaged
    for (std::size_t l = 0; l < line.kept.size(); ++l) s.mean_kept[l] += static_cast<double>(line.kept[l]);
    s.mean_prompt_tokens += static_cast<double>(line.prompt_tokens);
    ++s.samples;
  }
  if (s.samples > 0) {
    for (auto& v : s.mean_kept) v /= static_cast<double>(s.samples);
    s.mean_prompt_tokens /= static_cast<double>(s.samples);
  }
  return s;
}

}  // namespace ripplekv::eval
