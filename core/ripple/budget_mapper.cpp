#include "core/ripple/budget_mapper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "core/compress/budget_math.h"

namespace ripplekv {

ScoreNormalization parse_normalization(const std::string& name) {
  if (name == "minmax") return ScoreNormalization::MinMax;
  if (name == "rank") return ScoreNormalization::Rank;
  throw std::invalid_argument(fmt::format("normalize={}: choose minmax or rank", name));
}

std::vector<double> normalize_scores(const std::vector<double>& x, ScoreNormalization how) {
  const size_t n = x.size();
  if (n == 0) throw std::invalid_argument("budget mapper: no layer scores");
  for (double v : x) {
    if (!std::isfinite(v)) throw std::invalid_argument("budget mapper: layer scores must be finite");
  }
  std::vector<double> s(n, 0.0);
  if (how == ScoreNormalization::MinMax) {
    const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
    if (*hi > *lo) {
      for (size_t i = 0; i < n; ++i) s[i] = (x[i] - *lo) / (*hi - *lo);
    }
    return s;
  }
  if (n == 1) return s;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j + 1 < n && x[order[j + 1]] == x[order[i]]) ++j;
    const double avg_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
    for (size_t k = i; k <= j; ++k) s[order[k]] = avg_rank / static_cast<double>(n - 1);
    i = j + 1;
  }
  return s;
}

std::vector<double> exponential_multipliers(const std::vector<double>& scores, const BudgetMapperOptions& o) {
  if (!(o.ratio >= 1.0) || !std::isfinite(o.ratio)) {
    throw std::invalid_argument(fmt::format("ratio={} must be >= 1 (1 = uniform; larger = more unequal)", o.ratio));
  }
  auto s = normalize_scores(scores, o.normalization);
  for (auto& v : s) v = std::pow(o.ratio, v);
  return s;
}

std::vector<int64_t> map_budgets(const std::vector<double>& scores, int64_t budget, int64_t min_per_layer,
                                 int64_t max_per_layer, const BudgetMapperOptions& o) {
  const auto n = static_cast<int64_t>(scores.size());
  validate_budget_request(n, budget, min_per_layer, "ripple budget mapper");
  if (max_per_layer < budget) {
    throw std::invalid_argument(fmt::format("ripple budget mapper: at most {} tokens per layer (the prompt) but a "
                                            "budget of {}; prompts within the budget need no compression",
                                            max_per_layer, budget));
  }
  const auto m = exponential_multipliers(scores, o);
  return water_fill_integer(m, n * budget, min_per_layer, max_per_layer);
}

}  // namespace ripplekv
