// PyramidKV (Cai et al., 2024, https://arxiv.org/abs/2406.02069): lower layers keep more
// tokens, upper layers fewer, in an arithmetic schedule set by beta, following
// KVCache-Factory's PyramidKVCluster:
//   min = (B - W) // beta,  max = 2 (B - W) - min
//   if max >= T - W: max = T - W, min = 2 (B - W) - max
//   step = (max - min) // (L - 1);  layer l keeps (max - l * step) + W
//   if T < 2 (B - W): every layer keeps B (the reference's short-prompt fallback)
// The integer division of `step` can leave the total a few tokens short of L * B; those
// tokens are given back by largest remainder in proportion to the schedule (documented
// difference from the reference, which lets the total drift), so budgets stay matched.
#include <fmt/format.h>

#include "core/compress/allocators/allocators.h"
#include "core/compress/budget_math.h"

namespace ripplekv {

std::vector<int64_t> pyramid_reference_schedule(int64_t num_layers, int64_t budget, int64_t window, int64_t beta,
                                                int64_t prompt_len) {
  std::vector<int64_t> out(static_cast<size_t>(num_layers), budget);
  const int64_t b = budget - window, t = prompt_len;
  if (t < 2 * b || num_layers == 1) return out;  // fallback: uniform
  int64_t min_num = b / beta;
  int64_t max_num = 2 * b - min_num;
  if (max_num >= t - window) {
    max_num = t - window;
    min_num = 2 * b - max_num;
  }
  const int64_t steps = (max_num - min_num) / (num_layers - 1);
  for (int64_t l = 0; l < num_layers; ++l) out[static_cast<size_t>(l)] = max_num - l * steps + window;
  return out;
}

namespace {
class PyramidAllocator final : public LayerBudgetAllocator {
 public:
  explicit PyramidAllocator(PolicyOptions& o)
      : beta_(o.get_int("beta")), exact_(o.get_int("exact_total") != 0) {
    if (beta_ < 1) throw std::invalid_argument(fmt::format("pyramid: beta={} must be >= 1", beta_));
  }
  std::string name() const override { return "pyramid"; }
  std::vector<int64_t> allocate(const AllocationInput& in) const override {
    auto b = pyramid_reference_schedule(in.num_layers, in.budget, in.window, beta_, in.prompt_len);
    if (!exact_) return b;
    std::vector<double> w(b.begin(), b.end());
    return clamp_redistribute(b, in.min_per_layer, in.prompt_len, in.num_layers * in.budget, w);
  }

  bool exact_total() const override { return exact_; }

 private:
  int64_t beta_;
  bool exact_;
};
}  // namespace

std::unique_ptr<LayerBudgetAllocator> make_pyramid_allocator(PolicyOptions& o) {
  return std::make_unique<PyramidAllocator>(o);
}

}  // namespace ripplekv
