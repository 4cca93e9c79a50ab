// SnapKV (Li et al., 2024, https://arxiv.org/abs/2404.14469): the last `window` prompt
// queries vote for the keys they attend to; votes are smoothed by 1-D pooling and the
// top-scoring tokens are kept alongside the window. Defaults follow KVCache-Factory's
// LongBench runs (window 32, kernel 7, max pooling); GQA groups are combined by mean as in
// kvpress (SnapKVPress), or max / sum, or not at all (gqa=none: per query head, as the
// original SnapKV code, at group_size x the cache memory).
#include "core/compress/selectors/selectors.h"

#include <fmt/format.h>

namespace ripplekv {

namespace {

class SnapKvSelector final : public TokenSelector {
 public:
  explicit SnapKvSelector(PolicyOptions& o) {
    window_ = o.get_int("window");
    kernel_ = o.get_int("kernel");
    pooling_ = o.get_string("pooling");
    gqa_ = o.get_string("gqa");
    if (window_ < 1) throw std::invalid_argument(fmt::format("snapkv: window={} must be >= 1", window_));
    if (kernel_ < 1 || kernel_ % 2 == 0) {
      throw std::invalid_argument(fmt::format("snapkv: kernel={} must be a positive odd number", kernel_));
    }
  }
  std::string name() const override { return "snapkv"; }
  SelectorNeeds needs() const override { return {window_, 0}; }
  int64_t window() const override { return window_; }

  at::Tensor score(const LayerObservation& obs) const override {
    const int64_t t = obs.prompt_len, w = obs.window_probs.size(2);
    // Votes of the window queries for the keys before the window.
    auto votes = obs.window_probs.narrow(-1, 0, t - w).sum(2);  // [B, Hq, T - W]
    if (pooling_ != "none") {
      const auto b = votes.size(0), hq = votes.size(1);
      auto flat = votes.reshape({b * hq, 1, t - w});
      flat = pooling_ == "max" ? at::max_pool1d(flat, {kernel_}, {1}, {kernel_ / 2})
                               : at::avg_pool1d(flat, {kernel_}, {1}, {kernel_ / 2});
      votes = flat.view({b, hq, t - w});
    }
    // gqa=none: one selection per query head, as the original SnapKV code (which repeats the
    // KV heads first); the cache then holds group_size x the tokens' memory for this layer.
    auto per_kv = gqa_ == "none" ? votes : combine_gqa(votes, obs.group_size, gqa_);
    return at::constant_pad_nd(per_kv, {0, w}, 0.0);  // the window is forced; its score is unused
  }

 private:
  int64_t window_, kernel_;
  std::string pooling_, gqa_;
};

}  // namespace

std::unique_ptr<TokenSelector> make_snapkv_selector(PolicyOptions& o) { return std::make_unique<SnapKvSelector>(o); }

}  // namespace ripplekv
