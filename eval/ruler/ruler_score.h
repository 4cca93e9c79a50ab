// Scores of a `ripplekv ruler` run folder: <dir>/<length>/<task>.jsonl in RULER's prediction
// format, scored as RULER's evaluate.py scores them (eval/ruler/ruler_metric.h). Writes
// result.json ({"<task>@<length>": score}, which `ripplekv table` reads like a LongBench
// run) and results.md (tasks x lengths, with the average). Torch-free.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "eval/ruler/ruler_tasks.h"

namespace ripplekv::eval {

struct RulerScore {
  std::string task;
  int64_t length = 0;
  double score = 0;
  std::string nulls;  // "k/n"
  std::size_t samples = 0;
  std::vector<std::string> sample_ids;  // "_id" of each line (else "#<line>")
  std::vector<double> sample_scores;    // each in [0, 100]; their mean is `score` before rounding
};

// Scores one predictions file (RULER's format: "pred" and "outputs" per line).
RulerScore score_ruler_file(const std::filesystem::path& path, const RulerTask& task, int64_t length);
// Every task x length of a run folder; throws std::runtime_error naming a missing file.
std::vector<RulerScore> score_ruler_dir(const std::filesystem::path& dir, const std::vector<const RulerTask*>& tasks,
                                        const std::vector<int64_t>& lengths);
std::string ruler_scores_markdown(const std::string& label, const std::vector<RulerScore>& scores);
// result.json, ruler_scores.json, sample_scores.json and results.md; returns the paths written.
std::vector<std::filesystem::path> write_ruler_scores(const std::filesystem::path& dir, const std::string& label,
                                                      const std::vector<RulerScore>& scores);

}  // namespace ripplekv::eval
