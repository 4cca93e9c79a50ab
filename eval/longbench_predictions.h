// Prediction files in the official LongBench layout (pred.py writes one
// <task>.jsonl per task, a line per sample: {"pred", "answers", "all_classes",
// "length"}), read for scoring and written by runs.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/jsonl.h"

namespace ripplekv::eval {

struct PredictionRecord {
  std::string pred;
  std::vector<std::string> answers;
  std::optional<std::vector<std::string>> all_classes;  // null in the file -> nullopt
  std::optional<long long> length;                      // absent -> nullopt
  std::size_t line = 0;  // 1-based line in the file it was read from (0 if built in memory)
  std::string id;        // "_id" when the line has one (ripplekv's do), else "#<line>"
};

// "pred" and "answers" are required; "all_classes" may be null or absent; "length"
// may be absent. Errors name path:line (see JsonlReadOptions).
std::vector<PredictionRecord> load_predictions_jsonl(const std::filesystem::path& path,
                                                     const JsonlReadOptions& options = {});

// One line of the official layout, without the trailing newline.
std::string prediction_to_json_line(const PredictionRecord& record);

}  // namespace ripplekv::eval
