// The greedy choice of a decode step (models/ops/greedy_argmax.cpp) against ATen's argmax:
// the same index, ties, NaN and infinities included.
#include "catch_torch.h"

#include <limits>

#include "models/ops/cpu_features.h"
#include "models/ops/greedy_argmax.h"

using namespace ripplekv;

TEST_CASE("Greedy argmax equals ATen's argmax, ties, NaN and infinities included", "[ops]") {
  if (!ops::cpu_has_avx512()) WARN("no AVX-512 on this CPU: greedy_argmax is ATen's argmax");
  at::manual_seed(43);
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  // Vocabulary sizes with and without a tail of fewer than 16 (stories260K 512, SmolLM2 49152,
  // Qwen2.5 151936, 7, 33).
  for (int64_t n : {7, 33, 512, 49152, 151936}) {
    for (auto dtype : {at::kFloat, at::kBFloat16}) {
      INFO("vocabulary " << n << ", " << dtype);
      auto x = at::randn({12, 1, n});
      x[1].fill_(-inf);                     // all -inf: index 0
      x[2].fill_(1.0f);                     // all equal: the first
      x[3][0][n - 1] = 100.0f;              // the maximum last (in the tail where there is one)
      x[4][0][n / 2] = 100.0f;              // a tie: the first of the two
      x[4][0][n - 1] = 100.0f;
      x[5][0][n - 1] = nan;                 // a NaN wins, wherever it is
      x[6][0][n / 3] = nan;                 // the first of two NaN
      x[6][0][n - 2] = nan;
      x[6][0][0] = inf;
      x[7][0][n / 2] = inf;                 // +inf beats every finite value
      x[8].fill_(0.0f);                     // -0 before +0: a tie, the first
      x[8][0][0] = -0.0f;
      x[9].fill_(-5.0f);                    // negative rows
      x[9][0][n / 4] = -1.0f;
      x[10].copy_(x[10].abs() * 1e-40f);    // denormals
      const auto logits = x.to(dtype);
      const auto got = ops::greedy_argmax(logits);
      const auto expect = logits.argmax(-1);
      REQUIRE(got.sizes() == expect.sizes());
      CHECK(got.scalar_type() == at::kLong);
      CHECK(at::equal(got, expect));
    }
  }
  // Non-contiguous logits and float16 take ATen's argmax, with the same answer.
  const auto wide = at::randn({4, 100});
  CHECK_FALSE(ops::greedy_argmax_supported(wide.narrow(1, 0, 50)));
  CHECK(at::equal(ops::greedy_argmax(wide.narrow(1, 0, 50)), wide.narrow(1, 0, 50).argmax(-1)));
  CHECK(at::equal(ops::greedy_argmax(wide.to(at::kHalf)), wide.to(at::kHalf).argmax(-1)));
}
