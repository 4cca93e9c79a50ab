// Budget arithmetic and allocator invariants over a grid of (layers, budget, prompt, window).
#include "catch_torch.h"

#include <numeric>
#include <random>

#include "core/compress/allocators/allocators.h"
#include "core/compress/budget_math.h"
#include "core/compress/registry.h"

using namespace ripplekv;

namespace {
int64_t sum(const std::vector<int64_t>& v) { return std::accumulate(v.begin(), v.end(), int64_t{0}); }
}  // namespace

TEST_CASE("Largest remainder apportionment is exact and proportional", "[core][budget]") {
  CHECK(apportion_largest_remainder({1, 1, 1}, 10) == std::vector<int64_t>{4, 3, 3});
  CHECK(apportion_largest_remainder({1, 2, 1}, 8) == std::vector<int64_t>{2, 4, 2});
  CHECK(apportion_largest_remainder({0, 1}, 5) == std::vector<int64_t>{0, 5});
  // Weights are relative: huge ones give the shares their ratios give, without overflow.
  CHECK(apportion_largest_remainder({1e308, 1, 1}, 200) == std::vector<int64_t>{200, 0, 0});
  CHECK(apportion_largest_remainder({1e308, 1e308}, 7) == std::vector<int64_t>{4, 3});
  std::mt19937 rng(7);
  for (int trial = 0; trial < 500; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 40);
    std::vector<double> w(n);
    for (auto& x : w) x = std::uniform_real_distribution<double>(0.0, 10.0)(rng);
    const int64_t total = rng() % 100000;
    auto b = apportion_largest_remainder(w, total);
    REQUIRE(sum(b) == total);
    const double ws = std::accumulate(w.begin(), w.end(), 0.0);
    for (int i = 0; i < n; ++i) CHECK(std::abs(b[i] - total * w[i] / ws) < 1.0);  // Hamilton: within one unit
  }
  CHECK_THROWS(apportion_largest_remainder({0, 0}, 3));
  CHECK_THROWS(apportion_largest_remainder({1, -1}, 3));
}

TEST_CASE("Clamping keeps the total exact and the bounds", "[core][budget]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 500; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 32);
    const int64_t lo = rng() % 50, hi = lo + 1 + rng() % 500;
    const int64_t total = n * lo + static_cast<int64_t>(rng() % (n * (hi - lo) + 1));
    std::vector<int64_t> b(n);
    std::vector<double> w(n);
    for (int i = 0; i < n; ++i) {
      b[i] = static_cast<int64_t>(rng() % 1000);
      w[i] = 0.1 + (rng() % 100);
    }
    auto c = clamp_redistribute(b, lo, hi, total, w);
    REQUIRE(sum(c) == total);
    for (auto x : c) CHECK((x >= lo && x <= hi));
  }
  CHECK_THROWS_WITH(clamp_redistribute({10, 10}, 20, 30, 30, {1, 1}), Catch::Contains("cannot give 2 layers"));
}

TEST_CASE("PyramidKV schedule equals KVCache-Factory's formula - allocations are exact over a grid",
          "[core][budget][pyramid]") {
  // The reference formula, written out once more independently of the implementation.
  auto reference = [](int64_t L, int64_t B, int64_t W, int64_t beta, int64_t T) {
    std::vector<int64_t> out(L, B);
    if (T < (B - W) * 2 || L == 1) return out;
    int64_t min_num = (B - W) / beta, max_num = (B - W) * 2 - min_num;
    if (max_num >= T - W) {
      max_num = T - W;
      min_num = (B - W) * 2 - max_num;
    }
    const int64_t steps = (max_num - min_num) / (L - 1);
    for (int64_t l = 0; l < L; ++l) out[l] = max_num - l * steps + W;
    return out;
  };
  PolicyOptions none({});
  auto pyramid = make_allocator("pyramid", none);
  auto uniform = make_allocator("uniform", none);
  for (int64_t L : {2, 5, 16, 32}) {
    for (int64_t B : {40, 64, 128, 512}) {
      for (int64_t W : {8, 32}) {
        for (int64_t T : {B + 1, 2 * B, 3 * B, 8 * B + 17}) {
          if (B < W) continue;
          INFO("L=" << L << " B=" << B << " W=" << W << " T=" << T);
          const auto sched = pyramid_reference_schedule(L, B, W, 20, T);
          CHECK(sched == reference(L, B, W, 20, T));
          AllocationInput in{L, B, T, W, W, {}};
          for (const auto* a : {pyramid.get(), uniform.get()}) {
            auto b = a->allocate(in);
            REQUIRE(static_cast<int64_t>(b.size()) == L);
            CHECK(sum(b) == L * B);
            for (auto x : b) CHECK((x >= W && x <= T));
          }
          // The correction only adds the tokens the integer schedule dropped.
          auto b = pyramid->allocate(in);
          if (sum(sched) == L * B) CHECK(b == sched);
          for (int64_t l = 0; l + 1 < L; ++l) CHECK(b[l] >= b[l + 1] - 1);  // non-increasing up to rounding
        }
      }
    }
  }
}
