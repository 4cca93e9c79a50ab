// Pooling runs of one method made on different samples (`ripplekv table --pool`): two RULER
// sample sets generated from --seed 42 and --seed 43, or two LongBench runs over different
// samples of a task, become one row whose scores and bootstrap intervals cover every sample.
//
// Runs are pooled when they share the model, the method (selector, allocator, budget, policy
// options) and the task columns; with `across_tasks` (`--pool-across-tasks`) the task columns
// need not match: a row then covers every task its runs ran (RULER's 11 tasks from runs of 6
// and of 5), each task's score the mean of its own samples and Avg the mean of the task scores,
// and every row lists its tasks in the order they first appear among all the runs, so that
// rows covering the same tasks share a table. Sample ids are qualified by the run's sample set ("seed 43/0";
// a data file's own ids stay as they are), so the same sample reached twice (the same seed
// passed in two folders, or two runs over one file) is an error naming both folders, never a
// sample counted twice. Runs made differently (another dtype, device, chat template, model
// path...: config.json's "run" apart from seed, samples, data, tasks and method) are refused.
// A pooled column's score is the mean of its per-sample scores (already x100), rounded to 2
// decimals as the scorers round; the scorers scale the mean of the unscaled scores instead,
// which can differ in the last bit, and so in the rounding only at an exact half of 0.01.
// Avg is recomputed from those. A run alone keeps its own numbers.
// Torch-free.
#pragma once

#include <string>
#include <vector>

#include "eval/experiments/run_results.h"

namespace ripplekv::experiments {

struct PooledRuns {
  std::vector<LongBenchResult> runs;  // pooled rows and lone runs, in the input's order of first folder
  // Per model and budget where rows cover different sample sets ("SmolLM2 budget 128: H2O on
  // seed 42 only; the others on seed 42 + seed 43"): their paired comparisons say "different
  // samples", and their intervals are not comparable.
  std::vector<std::string> uneven;
};

// Throws std::invalid_argument for a run of a pooled group without per-sample scores (naming
// the folder and how to get them), for runs of a group made differently (naming both and the
// setting) and for a sample in two runs of a group (naming both).
PooledRuns pool_sample_sets(const std::vector<LongBenchResult>& runs, bool across_tasks = false);

}  // namespace ripplekv::experiments
