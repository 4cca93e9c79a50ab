#include "eval/experiments/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::experiments {
namespace {

void check_groups(const std::vector<std::vector<double>>& groups) {
  if (groups.empty()) throw std::invalid_argument("bootstrap: no tasks to resample");
  for (std::size_t t = 0; t < groups.size(); ++t) {
    if (groups[t].empty()) throw std::invalid_argument(fmt::format("bootstrap: task {} has no samples", t));
  }
}

void check(const std::vector<std::vector<double>>& groups, const BootstrapOptions& o) {
  check_groups(groups);
  if (o.resamples < 10) throw std::invalid_argument(fmt::format("bootstrap: {} resamples; use at least 10", o.resamples));
  if (!(o.level > 0 && o.level < 1)) throw std::invalid_argument(fmt::format("bootstrap: level {} is not in (0, 1)", o.level));
}

// Mean over tasks of the mean of x[t][idx[t][i]].
double statistic(const std::vector<std::vector<double>>& x, const std::vector<std::vector<std::size_t>>& idx) {
  double total = 0;
  for (std::size_t t = 0; t < x.size(); ++t) {
    double sum = 0;
    for (auto i : idx[t]) sum += x[t][i];
    total += sum / static_cast<double>(idx[t].size());
  }
  return total / static_cast<double>(x.size());
}

std::vector<std::vector<std::size_t>> identity_indices(const std::vector<std::vector<double>>& x) {
  std::vector<std::vector<std::size_t>> idx(x.size());
  for (std::size_t t = 0; t < x.size(); ++t) {
    idx[t].resize(x[t].size());
    for (std::size_t i = 0; i < x[t].size(); ++i) idx[t][i] = i;
  }
  return idx;
}

// Percentile interval of f over resamples of the sample indices of each group.
template <class F>
Interval percentile_interval(const std::vector<std::vector<double>>& shape, const BootstrapOptions& o, const F& f) {
  Interval out;
  out.estimate = f(identity_indices(shape));
  std::mt19937_64 rng(o.seed);
  std::vector<std::vector<std::size_t>> idx(shape.size());
  std::vector<double> stats;
  stats.reserve(static_cast<std::size_t>(o.resamples));
  for (int b = 0; b < o.resamples; ++b) {
    for (std::size_t t = 0; t < shape.size(); ++t) {
      const std::size_t n = shape[t].size();
      std::uniform_int_distribution<std::size_t> pick(0, n - 1);
      idx[t].resize(n);
      for (auto& i : idx[t]) i = pick(rng);
    }
    stats.push_back(f(idx));
  }
  std::sort(stats.begin(), stats.end());
  out.lo = sorted_quantile(stats, (1 - o.level) / 2);
  out.hi = sorted_quantile(stats, (1 + o.level) / 2);
  return out;
}

}  // namespace

double sorted_quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of no values");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(pos));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  return sorted[below] + (sorted[above] - sorted[below]) * (pos - static_cast<double>(below));
}

double mean_of_task_means(const std::vector<std::vector<double>>& groups) {
  check_groups(groups);
  return statistic(groups, identity_indices(groups));
}

Interval bootstrap_mean_interval(const std::vector<std::vector<double>>& groups, const BootstrapOptions& o) {
  check(groups, o);
  return percentile_interval(groups, o, [&](const auto& idx) { return statistic(groups, idx); });
}

Interval bootstrap_paired_difference(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b,
                                     const BootstrapOptions& o) {
  check(a, o);
  bool same = a.size() == b.size();
  for (std::size_t t = 0; same && t < a.size(); ++t) same = a[t].size() == b[t].size();
  if (!same) throw std::invalid_argument("bootstrap: a paired difference needs both sides scored on the same samples");
  return percentile_interval(a, o, [&](const auto& idx) { return statistic(a, idx) - statistic(b, idx); });
}

}  // namespace ripplekv::experiments
