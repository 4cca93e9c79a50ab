// CAKE (Qin et al., ICLR 2025, https://arxiv.org/abs/2503.12491; code antgroup/cakekv), the
// non-cascading prefill variant: each layer's preference is computed from the attention of
// the observation window A = probs[..., :T-W] over the keys before the window:
//   dispersion H_l = -sum(A * log(A + 1e-10))            (over every element)
//   variance   V_l = sum(var(A, over the window queries)) (unbiased)
//   P_l = H_l^(1/tau1) * V_l^(1/tau2)
// and the non-window budget (B - W) * L is split in proportion to P (float32, truncated as
// the reference does), then cake.utils.adjust_budgets clamps to T - W and spreads the excess
// or deficit evenly. A final exact-total correction (no-op whenever adjust_budgets already
// reached the total; disable with exact_total=0) keeps budgets matched across methods.
// CAKE's own eviction indicator is the `cake` selector.
#include <fmt/format.h>

#include <cmath>
#include <numeric>

#include "core/compress/allocators/allocators.h"
#include "core/compress/budget_math.h"

namespace ripplekv {

std::vector<int64_t> cake_adjust_budgets(std::vector<int64_t> b, int64_t total, int64_t seq_len) {
  const auto n = static_cast<int64_t>(b.size());
  int64_t excess = 0;
  for (auto& x : b) {
    excess += std::max<int64_t>(x - seq_len, 0);
    x = std::min(x, seq_len);
  }
  auto spread = [&](int64_t amount, bool up) {
    std::vector<int64_t> valid;
    for (int64_t i = 0; i < n; ++i) {
      if (up ? b[i] < seq_len : b[i] > 1) valid.push_back(i);
    }
    if (valid.empty()) return;
    const auto k = static_cast<int64_t>(valid.size());
    const int64_t per = amount / k, rem = amount % k;
    for (int64_t j = 0; j < k; ++j) b[valid[j]] += (up ? 1 : -1) * (per + (j < rem ? 1 : 0));
  };
  if (excess > 0) spread(excess, true);
  const int64_t diff = total - std::accumulate(b.begin(), b.end(), int64_t{0});
  if (diff != 0) spread(std::llabs(diff), diff > 0);
  return b;
}

namespace {

class CakeAllocator final : public LayerBudgetAllocator {
 public:
  explicit CakeAllocator(PolicyOptions& o)
      : tau1_(o.get_double("tau1")),
        tau2_(o.get_double("tau2")),
        window_(o.get_int("cake_window")),
        exact_(o.get_int("exact_total") != 0) {
    if (!(tau1_ > 0) || !(tau2_ > 0)) throw std::invalid_argument("cake: tau1 and tau2 must be > 0");
  }
  std::string name() const override { return "cake"; }
  // The statistics use the selector's observation window; cake_window= overrides it.
  AllocatorNeeds needs() const override { return {window_ > 0 ? window_ : -1, false}; }

  at::Tensor observe_attention(int64_t, const at::Tensor& probs) const override {
    const int64_t w = probs.size(2), t = probs.size(3);
    auto a = probs.narrow(-1, 0, t - w).to(at::kFloat);
    auto dispersion = -(a * at::log(a + 1e-10)).sum();
    auto variance = a.var(2, /*unbiased=*/true).sum();
    return at::pow(dispersion, 1.0 / tau1_) * at::pow(variance, 1.0 / tau2_);
  }

  std::vector<int64_t> allocate(const AllocationInput& in) const override {
    const int64_t w = in.window;
    const int64_t total = (in.budget - w) * in.num_layers;
    // float32 arithmetic as the reference (numpy float32 preferences).
    float sum = 0.0f;
    for (double p : in.stats) sum += static_cast<float>(p);
    std::vector<int64_t> b;
    for (double p : in.stats) {
      const float share = static_cast<float>(p) / sum * static_cast<float>(total);
      b.push_back(std::isfinite(share) ? static_cast<int64_t>(share) : 0);
    }
    b = cake_adjust_budgets(b, total, in.prompt_len - w);
    for (auto& x : b) x = std::min(x, in.prompt_len - w) + w;
    if (!exact_) return b;
    std::vector<double> weights(in.stats.begin(), in.stats.end());
    return clamp_redistribute(b, in.min_per_layer, in.prompt_len, in.num_layers * in.budget, weights);
  }
  bool exact_total() const override { return exact_; }

 private:
  double tau1_, tau2_;
  int64_t window_;
  bool exact_;
};

}  // namespace

std::unique_ptr<LayerBudgetAllocator> make_cake_allocator(PolicyOptions& o) { return std::make_unique<CakeAllocator>(o); }

}  // namespace ripplekv
