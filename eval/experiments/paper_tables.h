// Gathered results laid out as papers print them (eval/experiments/result_table.h renders):
//
// LongBench: one table per model; rows = method x budget (a FullKV block, then one block per
// budget, ascending), columns = the tasks run, in LongBench's order under their categories
// (Single-Doc QA, Multi-Doc QA, Summarization, Few-shot Learning, Synthetic, Code), then Avg.
// Published rows (configs/published/) go into the block of their budget, marked as published.
// Every run and published entry must cover the same tasks: a mix is an error.
//
// Fidelity: one table per model; rows = method x budget; KL mean / p90 / max (lower is
// better), top-1 agreement (higher is better) and the fraction of prompt KV bytes kept. Runs
// over different texts or lengths are an error. Torch-free.
#pragma once

#include <vector>

#include "eval/experiments/bootstrap.h"
#include "eval/experiments/published_results.h"
#include "eval/experiments/result_table.h"
#include "eval/experiments/run_results.h"

namespace ripplekv::experiments {

// Throws std::invalid_argument for runs of different task sets (naming one folder of each),
// published entries of another task set, published entries with runs of several models, and
// two runs that would be the same row. `bootstrap`: the Avg intervals' resamples and level.
std::vector<ResultTable> longbench_tables(const std::vector<LongBenchResult>& runs,
                                          const std::vector<PublishedEntry>& published,
                                          const BootstrapOptions& bootstrap = {});

// Throws std::invalid_argument for runs over different texts (naming both), and two runs that
// would be the same row.
std::vector<ResultTable> fidelity_tables(const std::vector<FidelityResult>& runs, const BootstrapOptions& bootstrap = {});

// Short column names as papers print them ("NrtvQA", "MF-en", "RB-P", ...).
std::string task_abbreviation(const std::string& task);

}  // namespace ripplekv::experiments
