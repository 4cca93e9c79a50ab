// Scoring a predictions directory the way the official LongBench eval.py does
// (one <task>.jsonl per task -> result.json; with longbench_e, per-length buckets),
// plus AdaKV's list_result.json (per-sample scores) and Markdown / CSV tables.
//
// Differences from eval.py, all on inputs where eval.py crashes or is ill-defined:
// an unknown task file name, a classification task without all_classes, a
// LongBench-E record without "length", and an empty file are errors that name the
// file; an empty LongBench-E bucket is written as NaN, like json.dump does.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/jsonl.h"
#include "eval/longbench_predictions.h"
#include "eval/longbench_tasks.h"
#include "eval/metrics.h"

namespace ripplekv::eval {

struct ScoreOptions {
  bool longbench_e = false;  // eval.py --e: scores per length bucket
  // Tasks whose metric needs jieba (multifieldqa_zh, dureader, vcsum) are an error
  // by default; with this set they are skipped with a warning instead.
  bool skip_unsupported_tasks = false;
  JsonlReadOptions read;
  RougeOptions rouge;
};

struct TaskResult {
  std::string task;
  std::vector<double> sample_scores;  // file order, as list_result.json
  double score = 0.0;                 // eval.py's scorer (always computed)
  std::optional<LengthBucketScores> buckets;  // eval.py's scorer_e (longbench_e only)
  std::vector<std::string> sample_ids;  // the records' ids, in sample_scores' order
};

// Scores one task's records. As in eval.py, classification uses the all_classes of
// the LAST record for every sample. `source` names the file in error messages.
TaskResult score_task_records(const LongBenchTask& task,
                              const std::vector<PredictionRecord>& records,
                              const ScoreOptions& options = {},
                              const std::string& source = "<memory>");

// Scores every "<task>.jsonl" in `dir` (the task is the file name up to its first
// '.'; other files are ignored). Results come in the task table's order.
std::vector<TaskResult> score_predictions_dir(const std::filesystem::path& dir,
                                              const ScoreOptions& options = {});

// result.json as eval.py writes it (json.dump(..., indent=4), Python float repr).
std::string result_json(const std::vector<TaskResult>& results, bool longbench_e);
// list_result.json as AdaKV's eval.py writes it: {task: [per-sample scores]}.
std::string list_result_json(const std::vector<TaskResult>& results);

// Tables with a row per run and a column per task (task table order, only tasks
// some run has) plus "Avg": the plain mean of that run's task scores, rounded
// like eval.py (Python round to 2 places); a run missing a task gets "-" there
// and no Avg.
struct RunScores {
  std::string label;  // e.g. the predictions directory name
  std::vector<TaskResult> results;
};
std::string results_markdown(const std::vector<RunScores>& runs);
std::string results_csv(const std::vector<RunScores>& runs);
std::optional<double> average_score(const std::vector<TaskResult>& results);

// Removes the score files of a LongBench or RULER run (write_score_files', write_ruler_scores')
// that are in `out_dir`: scores of a sample set the folder no longer stands for (it was
// extended to more samples).
void remove_score_files(const std::filesystem::path& out_dir);

// Writes result.json, list_result.json and sample_scores.json (plain mode only), results.md and
// results.csv into `out_dir` (created if needed). Returns the paths written.
std::vector<std::filesystem::path> write_score_files(const std::filesystem::path& out_dir,
                                                     const RunScores& run, bool longbench_e);

}  // namespace ripplekv::eval
