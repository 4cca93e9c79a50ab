// The `ripple_prompt` layer budget allocator: RippleKV's sensitivity measured on each prompt
// after its prefill (prompt_probe.h), instead of a profile of calibration text, mapped to
// budgets by the same exponential budget mapper as `ripple`.
//   ratio=2, normalize=minmax | rank        the mapping (budget_mapper.h)
//   score=mean | p50 | p90 | max            statistic of the KL over the K replayed positions x D draws
//   kl_positions=32                         K: the prompt's last K tokens are replayed
//   draws=1                                 D noise draws per layer (cost: D x the perturbed replays)
//   eps=0.1, noise=layer_mean, direction=forward, seed=0   the perturbation (perturbation.h)
// Sessions of one prefill with the same options (other budgets) share one probe.
#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "core/ripple/budget_mapper.h"
#include "core/ripple/prompt_probe.h"
#include "core/ripple/ripple_allocator.h"
#include "core/ripple/sensitivity_profile.h"

namespace ripplekv {

namespace {

class PromptRippleAllocator final : public LayerBudgetAllocator {
 public:
  explicit PromptRippleAllocator(PolicyOptions& o) {
    map_.ratio = o.get_double("ratio");
    map_.normalization = parse_normalization(o.get_string("normalize"));
    score_ = o.get_string("score");
    window_ = o.get_int("kl_positions");
    probe_.noise.eps = o.get_double("eps");
    probe_.noise.mode = parse_noise_mode(o.get_string("noise"));
    probe_.direction = parse_kl_direction(o.get_string("direction"));
    probe_.draws = o.get_int("draws");
    const int64_t seed = o.get_int("seed");
    if (!(map_.ratio >= 1.0)) {
      throw std::invalid_argument(fmt::format("ripple_prompt: ratio={} must be >= 1 (1 = uniform budgets)", map_.ratio));
    }
    if (probe_.draws < 1) throw std::invalid_argument(fmt::format("ripple_prompt: draws={} must be >= 1", probe_.draws));
    if (window_ < 1) throw std::invalid_argument(fmt::format("ripple_prompt: kl_positions={} must be >= 1", window_));
    if (!(probe_.noise.eps > 0) || !std::isfinite(probe_.noise.eps)) {
      throw std::invalid_argument(fmt::format("ripple_prompt: eps={} must be a positive number (e.g. 0.1)",
                                              probe_.noise.eps));
    }
    if (seed < 0) throw std::invalid_argument(fmt::format("ripple_prompt: seed={} must be >= 0", seed));
    probe_.seed = static_cast<uint64_t>(seed);
  }
  std::string name() const override { return "ripple_prompt"; }
  AllocatorNeeds needs() const override {
    AllocatorNeeds n;
    n.probe_tokens = window_;
    return n;
  }
  std::vector<double> probe(const PromptProbe& p) const override {
    const auto kl = probe_prompt_sensitivity(p.model, p.cache, p.window_input, probe_);  // [L, D x K]
    std::vector<double> out;
    for (int64_t l = 0; l < kl.size(0); ++l) {
      const double* row = kl[l].data_ptr<double>();
      std::vector<double> v(row, row + kl.size(1));
      if (score_ == "mean") {
        double s = 0;
        for (double x : v) s += x;
        out.push_back(s / static_cast<double>(v.size()));
      } else if (score_ == "max") {
        out.push_back(percentile(v, 1.0));
      } else {
        out.push_back(percentile(v, score_ == "p50" ? 0.5 : 0.9));
      }
    }
    return out;
  }
  std::vector<int64_t> allocate(const AllocationInput& in) const override {
    if (static_cast<int64_t>(in.stats.size()) != in.num_layers) {
      throw std::logic_error(fmt::format("ripple_prompt: {} measured layers for a {}-layer model", in.stats.size(),
                                         in.num_layers));
    }
    return map_budgets(in.stats, in.budget, in.min_per_layer, in.prompt_len, map_);
  }

 private:
  BudgetMapperOptions map_;
  PromptProbeOptions probe_;
  std::string score_;
  int64_t window_ = 32;
};

}  // namespace

std::unique_ptr<LayerBudgetAllocator> make_prompt_ripple_allocator(PolicyOptions& o) {
  return std::make_unique<PromptRippleAllocator>(o);
}

}  // namespace ripplekv
