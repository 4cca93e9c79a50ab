#include "core/compress/token_selector.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ripplekv {

at::Tensor select_tokens(const at::Tensor& scores, int64_t budget, int64_t sinks, int64_t window) {
  const int64_t t = scores.size(-1);
  if (budget > t || sinks + window > budget || sinks < 0 || window < 0) {
    throw std::invalid_argument(fmt::format("select_tokens: need sinks ({}) + window ({}) <= budget ({}) <= tokens ({})",
                                            sinks, window, budget, t));
  }
  const auto b = scores.size(0), h = scores.size(1);
  auto opts = scores.options().dtype(at::kLong);
  std::vector<at::Tensor> parts;
  if (sinks > 0) parts.push_back(at::arange(0, sinks, opts).expand({b, h, sinks}));
  const int64_t middle = t - sinks - window, pick = budget - sinks - window;
  if (pick > 0) {
    auto mid_scores = scores.narrow(-1, sinks, middle).contiguous();
    parts.push_back(std::get<1>(mid_scores.topk(pick, -1)) + sinks);
  }
  if (window > 0) parts.push_back(at::arange(t - window, t, opts).expand({b, h, window}));
  auto idx = parts.size() == 1 ? parts[0].contiguous() : at::cat(parts, -1);
  return std::get<0>(idx.sort(-1));
}

at::Tensor combine_gqa(const at::Tensor& s, int64_t group_size, const std::string& how) {
  const auto b = s.size(0), hq = s.size(1), n = s.size(2);
  auto g = s.view({b, hq / group_size, group_size, n});
  if (how == "mean") return g.mean(2);
  if (how == "max") return std::get<0>(g.max(2));
  if (how == "sum") return g.sum(2);
  throw std::invalid_argument(fmt::format("gqa={}: choose mean, max or sum", how));
}

}  // namespace ripplekv
