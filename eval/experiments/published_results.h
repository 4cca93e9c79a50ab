// Published LongBench numbers to print beside ours (`ripplekv table --published FILE`),
// from a JSON file such as configs/published/longbench.json:
//
//   {"ripplekv_published_longbench": 1,
//    "entries": [{"model": "Mistral-7B-Instruct-v0.2", "method": "FullKV", "budget": "full",
//                 "source": "where the numbers are printed, precisely",
//                 "scores": {"narrativeqa": 26.63, ...}}]}
//
// budget is "full" or a number of tokens per layer. Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ripplekv::experiments {

struct PublishedEntry {
  std::string model;
  std::string method;
  std::optional<int64_t> budget;  // nullopt: full cache
  std::string source;
  std::map<std::string, double> scores;  // task -> score
};

// Throws std::invalid_argument "file: entries[i]: ..." for a malformed file or entry, an
// unknown task name, or an entry without a source.
std::vector<PublishedEntry> read_published_file(const std::filesystem::path& path);

// The entries of `model` (case-insensitive); with model empty, the file must hold one model.
// Throws std::invalid_argument listing the file's models otherwise.
std::vector<PublishedEntry> select_published(const std::vector<PublishedEntry>& entries, const std::string& model,
                                             const std::string& file);

}  // namespace ripplekv::experiments
