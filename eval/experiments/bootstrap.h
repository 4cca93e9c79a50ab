// Bootstrap confidence intervals for benchmark scores: the percentile interval of a mean over
// tasks of per-task sample means (LongBench's and RULER's Avg), resampling the samples of each
// task independently (a stratified bootstrap: every resample keeps each task's sample count),
// and the paired interval of the difference between two methods scored on the same samples
// (one resample of sample indices, applied to both). Deterministic for a given seed. Torch-free.
#pragma once

#include <cstdint>
#include <vector>

namespace ripplekv::experiments {

struct BootstrapOptions {
  int resamples = 2000;
  double level = 0.95;     // two-sided: the (1-level)/2 and (1+level)/2 quantiles
  uint64_t seed = 20241;   // fixed, so that a table reprints the same intervals
};

struct Interval {
  double estimate = 0;  // the statistic on the data itself
  double lo = 0, hi = 0;
  // A difference whose interval holds 0 is a tie.
  bool contains_zero() const { return lo <= 0 && 0 <= hi; }
};

// The statistic the intervals below are of: the mean over tasks of the task means, groups[t]
// holding the per-sample scores of task t. Throws std::invalid_argument for no groups or an
// empty group.
double mean_of_task_means(const std::vector<std::vector<double>>& groups);

// groups[t] = the per-sample scores of task t; the statistic is mean_of_task_means. Throws std::invalid_argument for no groups, an empty group or bad options.
Interval bootstrap_mean_interval(const std::vector<std::vector<double>>& groups, const BootstrapOptions& options = {});

// The statistic of a minus that of b, with a[t][i] and b[t][i] scored on the same sample.
// Throws std::invalid_argument when the shapes differ.
Interval bootstrap_paired_difference(const std::vector<std::vector<double>>& a,
                                     const std::vector<std::vector<double>>& b, const BootstrapOptions& options = {});

// The q-quantile of sorted values, linearly interpolated (numpy's default "linear" method).
double sorted_quantile(const std::vector<double>& sorted, double q);

}  // namespace ripplekv::experiments
