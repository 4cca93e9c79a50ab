// RippleKV against the best baseline on the same samples: for each model and KV budget, every
// run whose allocator is ripple minus the compressed run with the best score among the rest
// scored on the same samples (full cache excluded; LongBench: highest Avg, fidelity: lowest
// mean KL; the best of all, marked "different samples", when none shares its samples), with a paired
// bootstrap interval of the difference (eval/experiments/bootstrap.h). A difference whose
// interval holds 0 is a tie. Torch-free.
#pragma once

#include <optional>
#include <vector>

#include "eval/experiments/bootstrap.h"
#include "eval/experiments/result_table.h"
#include "eval/experiments/run_results.h"

namespace ripplekv::experiments {

// A run's per-sample scores in its task order (the groups of a stratified bootstrap), or
// nullopt when it has none.
std::optional<std::vector<std::vector<double>>> sample_groups(const LongBenchResult& run);

// The confidence interval of a run's Avg, or nullopt when it has no per-sample scores.
std::optional<Interval> avg_interval(const LongBenchResult& run, const BootstrapOptions& options = {});

// The confidence interval of a fidelity run's mean KL, resampling texts (a text's positions
// are not independent), or nullopt when it has fewer than 2 per-text values.
std::optional<Interval> kl_interval(const FidelityResult& run, const BootstrapOptions& options = {});

// One table per model that has ripple runs and baselines at the same budget: rows (method,
// budget, baseline, verdict: win | tie | loss) and columns difference, CI low, CI high. Runs
// without per-sample scores are left out; a pair scored on different samples gets no numbers
// and the verdict "different samples".
std::vector<ResultTable> paired_difference_tables(const std::vector<LongBenchResult>& runs,
                                                  const BootstrapOptions& options = {});

// The same for fidelity runs: RippleKV's mean KL minus the lowest-KL baseline's, paired on the
// texts (runs without per-text values are left out; runs on other texts: "different texts").
std::vector<ResultTable> paired_fidelity_tables(const std::vector<FidelityResult>& runs,
                                                const BootstrapOptions& options = {});

}  // namespace ripplekv::experiments
