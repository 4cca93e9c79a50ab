// H2O (Zhang et al., 2023, https://arxiv.org/abs/2306.14048), in KVCache-Factory's one-shot
// prompt form: "heavy hitters" by attention accumulated over ALL prompt queries (causal),
// plus the most recent `window` tokens. GQA groups combined by mean (or max / sum).
#include <fmt/format.h>

#include "core/compress/selectors/selectors.h"

namespace ripplekv {

namespace {

class H2oSelector final : public TokenSelector {
 public:
  explicit H2oSelector(PolicyOptions& o)
      : window_(o.get_int("window")), gqa_(o.get_string("gqa")) {
    if (window_ < 0) throw std::invalid_argument(fmt::format("h2o: window={} must be >= 0", window_));
  }
  std::string name() const override { return "h2o"; }
  SelectorNeeds needs() const override { return {0, -1}; }
  int64_t window() const override { return window_; }
  at::Tensor score(const LayerObservation& obs) const override {
    return combine_gqa(obs.column_sums, obs.group_size, gqa_);
  }

 private:
  int64_t window_;
  std::string gqa_;
};

}  // namespace

std::unique_ptr<TokenSelector> make_h2o_selector(PolicyOptions& o) { return std::make_unique<H2oSelector>(o); }

}  // namespace ripplekv
