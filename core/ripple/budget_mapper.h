// RippleKV's exponential budget mapper (torch-free): per-layer sensitivity scores -> integer
// per-layer budgets that sum exactly to L * B.
//
//   s_l = normalize(score_l) in [0, 1]      (min-max by default; rank-based as an option)
//   m_l = r ^ s_l                           (r >= 1: the max/min multiplier before clamping;
//                                            r = 1 gives the uniform allocation)
//   B_l = L * B * m_l / sum(m)              when no bound binds; in general
//   B_l = clamp(c * m_l, min, max)          with c such that the B_l sum to L * B ("water
//                                            filling": clamped layers' excess is shared in
//                                            proportion to m), then rounded by largest
//                                            remainder so the integer total is exactly L * B.
// Water filling keeps the budgets ordered like the scores and makes the max/min allocation
// ratio non-decreasing in r (c is non-increasing and c * r non-decreasing in r).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ripplekv {

enum class ScoreNormalization { MinMax, Rank };
ScoreNormalization parse_normalization(const std::string& name);

struct BudgetMapperOptions {
  double ratio = 4.0;
  ScoreNormalization normalization = ScoreNormalization::MinMax;
};

// Normalized scores in [0, 1]. Min-max: (x - min) / (max - min), all 0 when every score is
// equal. Rank: rank / (L - 1) with ties sharing their average rank.
std::vector<double> normalize_scores(const std::vector<double>& scores, ScoreNormalization how);

// The multipliers r^s (before any budget arithmetic).
std::vector<double> exponential_multipliers(const std::vector<double>& scores, const BudgetMapperOptions& options);

// Integer budgets; throws std::invalid_argument for r < 1, non-finite scores, or an
// impossible request (L * min_per_layer > L * budget, prompt shorter than the budget).
std::vector<int64_t> map_budgets(const std::vector<double>& scores, int64_t budget, int64_t min_per_layer,
                                 int64_t max_per_layer, const BudgetMapperOptions& options);

}  // namespace ripplekv
