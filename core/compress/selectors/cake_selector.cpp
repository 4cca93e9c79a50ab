// CAKE's eviction indicator (antgroup/cakekv, llama_attn_forward_cake): per token, the mean
// plus gamma times the variance of the window queries' attention, smoothed by average
// pooling (kernel 5), averaged over each KV head's query group; the window is kept.
#include <fmt/format.h>

#include "core/compress/selectors/selectors.h"

namespace ripplekv {

namespace {

class CakeSelector final : public TokenSelector {
 public:
  explicit CakeSelector(PolicyOptions& o)
      : window_(o.get_int("window")),
        kernel_(o.get_int("kernel")),
        gamma_(o.get_double("gamma")) {
    if (window_ < 1) throw std::invalid_argument(fmt::format("cake: window={} must be >= 1", window_));
    if (!(gamma_ >= 0)) {
      throw std::invalid_argument(fmt::format("cake: gamma={} must be >= 0 (it weighs the attention variance)", gamma_));
    }
    if (kernel_ < 1 || kernel_ % 2 == 0) throw std::invalid_argument("cake: kernel must be a positive odd number");
  }
  std::string name() const override { return "cake"; }
  SelectorNeeds needs() const override { return {window_, 0}; }
  int64_t window() const override { return window_; }
  at::Tensor score(const LayerObservation& obs) const override {
    const int64_t t = obs.prompt_len, w = obs.window_probs.size(2);
    auto a = obs.window_probs;
    auto indicator = (a.mean(2) + gamma_ * a.var(2, /*unbiased=*/true)).narrow(-1, 0, t - w);
    const auto b = indicator.size(0), hq = indicator.size(1);
    auto pooled = at::avg_pool1d(indicator.reshape({b * hq, 1, t - w}), {kernel_}, {1}, {kernel_ / 2});
    auto per_kv = combine_gqa(pooled.view({b, hq, t - w}), obs.group_size, "mean");
    return at::constant_pad_nd(per_kv, {0, w}, 0.0);
  }

 private:
  int64_t window_, kernel_;
  double gamma_;
};

}  // namespace

std::unique_ptr<TokenSelector> make_cake_selector(PolicyOptions& o) { return std::make_unique<CakeSelector>(o); }

}  // namespace ripplekv
