// SqueezeAttention (Wang et al., 2024, https://arxiv.org/abs/2404.04793; code
// hetailang/SqueezeAttention): layers whose attention changes the hidden states least are
// least important. Per layer, the cosine similarity between the hidden states before and
// after the attention block (mean over prompt tokens); the L values are clustered into 3
// groups (1-D k-means; here the exact optimum, which equals sklearn's KMeans on these
// inputs); the most-similar group keeps p * B tokens per layer and the others share the
// rest: a = (L * B - n3 * p * B) / (n1 + n2), each int() as the reference does. Then clamped
// to [selector minimum, prompt] and (exact_total=1, default) corrected to exactly L * B.
// Fewer than 3 layers: uniform.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>

#include "core/compress/allocators/allocators.h"
#include "core/compress/budget_math.h"

namespace ripplekv {

std::vector<std::vector<int64_t>> kmeans_1d_exact(const std::vector<double>& v, int k) {
  const auto n = static_cast<int64_t>(v.size());
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return v[a] < v[b]; });
  auto sse = [&](int64_t lo, int64_t hi) {  // sorted range [lo, hi)
    double mu = 0;
    for (int64_t i = lo; i < hi; ++i) mu += v[order[i]];
    mu /= static_cast<double>(hi - lo);
    double s = 0;
    for (int64_t i = lo; i < hi; ++i) s += (v[order[i]] - mu) * (v[order[i]] - mu);
    return s;
  };
  // Optimal 1-D clusters are contiguous in sorted order: try every pair of cut points (k = 3).
  double best = std::numeric_limits<double>::infinity();
  int64_t c1 = 1, c2 = 2;
  for (int64_t a = 1; a <= n - 2; ++a) {
    for (int64_t b = a + 1; b <= n - 1; ++b) {
      const double s = sse(0, a) + sse(a, b) + sse(b, n);
      if (s < best) {
        best = s;
        c1 = a;
        c2 = b;
      }
    }
  }
  (void)k;
  return {std::vector<int64_t>(order.begin(), order.begin() + c1),
          std::vector<int64_t>(order.begin() + c1, order.begin() + c2),
          std::vector<int64_t>(order.begin() + c2, order.end())};
}

namespace {

class SqueezeAllocator final : public LayerBudgetAllocator {
 public:
  explicit SqueezeAllocator(PolicyOptions& o)
      : p_(o.get_double("p")), exact_(o.get_int("exact_total") != 0) {
    if (!(p_ > 0) || p_ > 1) throw std::invalid_argument(fmt::format("squeeze: p={} must be in (0, 1]", p_));
  }
  std::string name() const override { return "squeeze"; }
  AllocatorNeeds needs() const override { return {0, true}; }
  at::Tensor observe_hidden(int64_t, const at::Tensor& before, const at::Tensor& after) const override {
    return at::cosine_similarity(before[0].to(at::kFloat), after[0].to(at::kFloat), 1).mean();
  }
  std::vector<int64_t> allocate(const AllocationInput& in) const override {
    const int64_t L = in.num_layers, T = in.prompt_len;
    std::vector<int64_t> b(static_cast<size_t>(L), in.budget);
    if (L >= 3) {
      const auto groups = kmeans_1d_exact(in.stats, 3);
      const double ini = static_cast<double>(in.budget) / static_cast<double>(T);
      const double low = p_ * ini;
      const auto n12 = static_cast<double>(groups[0].size() + groups[1].size());
      const double a = (static_cast<double>(L) * ini - static_cast<double>(groups[2].size()) * low) / n12;
      for (int g = 0; g < 3; ++g) {
        for (auto l : groups[g]) b[l] = static_cast<int64_t>((g == 2 ? low : a) * static_cast<double>(T));
      }
    }
    for (auto& x : b) x = std::clamp(x, in.min_per_layer, T);
    if (!exact_) return b;
    std::vector<double> w(b.begin(), b.end());
    return clamp_redistribute(b, in.min_per_layer, T, L * in.budget, w);
  }
  bool exact_total() const override { return exact_; }

 private:
  double p_;
  bool exact_;
};

}  // namespace

std::unique_ptr<LayerBudgetAllocator> make_squeeze_allocator(PolicyOptions& o) {
  return std::make_unique<SqueezeAllocator>(o);
}

}  // namespace ripplekv
