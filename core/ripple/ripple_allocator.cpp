// The `ripple` layer budget allocator: RippleKV's measured per-layer sensitivity (a profile
// from `ripplekv profile`) mapped to budgets by the exponential budget mapper.
//   profile=PATH   the sensitivity profile (JSON)
//   ratio=2        r >= 1, the max/min multiplier before clamping (1 = uniform)
//   normalize=minmax | rank
//   score=mean | p50 | p90 | max | text_median   which per-layer statistic is the sensitivity
#include <fmt/format.h>

#include "core/compress/allocators/allocators.h"
#include "core/ripple/budget_mapper.h"
#include "core/ripple/ripple_allocator.h"
#include "core/ripple/sensitivity_profile.h"

namespace ripplekv {

namespace {

class RippleAllocator final : public LayerBudgetAllocator {
 public:
  explicit RippleAllocator(PolicyOptions& o) {
    path_ = o.get_string("profile");
    opts_.ratio = o.get_double("ratio");
    opts_.normalization = parse_normalization(o.get_string("normalize"));
    const auto stat = o.get_string("score");
    if (!(opts_.ratio >= 1.0)) {
      throw std::invalid_argument(fmt::format("ripple: ratio={} must be >= 1 (1 = uniform budgets)", opts_.ratio));
    }
    if (path_.empty() && o.validate_only) return;  // profiled on the fly by the run itself
    if (path_.empty()) {
      throw std::invalid_argument("ripple: give a sensitivity profile with profile=PATH (from `ripplekv profile`), or "
                                  "calibration=FILE to profile on the fly");
    }
    const auto profile = read_profile_json(path_);
    if (o.model_layers > 0) {
      for (auto& note : check_profile_matches(profile, path_, o.model_layers, o.model)) o.notes.push_back(std::move(note));
    }
    try {
      scores_ = profile.scores(stat);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("ripple: {}: {}", path_, e.what()));
    }
  }
  std::string name() const override { return "ripple"; }
  std::vector<int64_t> allocate(const AllocationInput& in) const override {
    if (static_cast<int64_t>(scores_.size()) != in.num_layers) {
      throw std::invalid_argument(fmt::format("ripple: {} has {} layers, the model {}", path_, scores_.size(),
                                              in.num_layers));
    }
    return map_budgets(scores_, in.budget, in.min_per_layer, in.prompt_len, opts_);
  }

 private:
  std::string path_;
  BudgetMapperOptions opts_;
  std::vector<double> scores_;
};

}  // namespace

std::unique_ptr<LayerBudgetAllocator> make_ripple_allocator(PolicyOptions& o) {
  return std::make_unique<RippleAllocator>(o);
}

}  // namespace ripplekv
