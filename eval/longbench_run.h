// The parts of a `ripplekv longbench` run folder that need no model: which tasks, which data
// file and samples each has, and finishing the folder (merging complete shards, then scoring
// once every task's <task>.jsonl holds all its samples). Used by the longbench,
// longbench-merge and longbench-score commands. Torch-free.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eval/longbench_data.h"
#include "eval/longbench_score.h"
#include "eval/longbench_tasks.h"

namespace ripplekv::eval {

// "a,b,c" -> tasks in the given order; "all" = the 16 English tasks. Unknown names throw
// std::invalid_argument listing the tasks; tasks whose metric needs jieba (not reproduced)
// throw too, before anything runs.
std::vector<const LongBenchTask*> parse_task_list(const std::string& csv);

// The data file of `task` in `data_dir`, the first of: <task>.jsonl, data/<task>.jsonl
// (official layout; <task>_e.jsonl for LongBench-E), MiniLongBench_<task>.json,
// mini/MiniLongBench_<task>.json. Throws std::runtime_error naming the paths tried.
std::filesystem::path find_task_file(const std::filesystem::path& data_dir, const LongBenchTask& task,
                                     bool longbench_e);

struct TaskSamples {
  const LongBenchTask* task = nullptr;
  std::filesystem::path file;
  std::vector<Sample> samples;  // file order, cut to max_samples
  std::vector<std::string> ids() const;
};

// Loads the task's samples (the first max_samples; 0 = all). A sample _id seen twice is an
// error naming the file; records of another dataset than `task` too.
TaskSamples load_task_samples(const std::filesystem::path& data_dir, const LongBenchTask& task,
                              long long max_samples, bool longbench_e, const SampleReadOptions& read);

struct FinishedRun {
  bool complete = false;                // every task's <task>.jsonl holds all its samples
  std::vector<std::string> incomplete;  // one line per task still waiting, saying on what
  std::vector<TaskResult> results;      // when complete
  std::vector<std::filesystem::path> written;  // score files, when complete
};

// Merges each task's shard files when all its shards are complete (and <task>.jsonl is not
// already complete), then, when every task is complete, scores the folder and writes
// result.json, list_result.json, results.md and results.csv into it.
// Throws std::runtime_error when a task has shard files of different counts, or a partial
// <task>.jsonl next to shard files (two kinds of run mixed).
FinishedRun finish_run_dir(const std::filesystem::path& out_dir, const std::vector<TaskSamples>& tasks,
                           const ScoreOptions& score_options);

}  // namespace ripplekv::eval
