// The decode step's SwiGLU loop (models/ops/swiglu_token.cpp) against the ATen ops it replaces,
// silu(gate) * up on the fused projection's halves: bit for bit.
#include "catch_torch.h"

#include <limits>

#include "models/ops/cpu_features.h"
#include "models/ops/ops.h"
#include "models/ops/swiglu_token.h"

using namespace ripplekv;

namespace {
// Equal bits (the sign of zero too), NaN where the other has NaN (its payload aside:
// silu(-inf) is -inf / inf).
bool same_values(const at::Tensor& a, const at::Tensor& b) {
  const auto nan_a = at::isnan(a), nan_b = at::isnan(b);
  const auto bits = a.scalar_type() == at::kFloat ? at::kInt : at::kShort;
  return at::equal(nan_a, nan_b) &&
         at::equal(a.masked_fill(nan_a, 0).contiguous().view(bits), b.masked_fill(nan_b, 0).contiguous().view(bits));
}
}  // namespace

TEST_CASE("Decode SwiGLU equals ATen's silu times up bit for bit", "[ops]") {
  const auto probe = at::randn({1, 1, 256});
  if (!ops::swiglu_token_supported(probe)) {
    WARN("no AVX-512 or no exported SLEEF exp in this LibTorch: decode SwiGLU takes the ATen ops");
    CHECK_FALSE(ops::swiglu_token_supported(probe.to(at::kBFloat16)));
    return;
  }
  at::manual_seed(41);
  // SmolLM2's intermediate size (1536), TinyLlama's (5632) and a small one; 1 and 16 rows.
  for (int64_t inter : {64, 1536, 5632}) {
    for (int64_t rows : {1, 16}) {
      for (auto dtype : {at::kFloat, at::kBFloat16}) {
        INFO("intermediate size " << inter << ", " << rows << " rows, " << dtype);
        auto values = at::randn({rows, 1, 2 * inter}) * 4;
        // Where exp over- and underflows, zeros of both signs, infinities, the largest values
        // and denormals, in the gate and in the up half.
        const float extremes[] = {90.0f, -90.0f, 0.0f, -0.0f, std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(), 3.0e38f, -3.0e38f, 1e-40f, -1e-40f,
                                  20.0f, -20.0f};
        for (int i = 0; i < 12; ++i) {
          values[0][0][3 * i] = extremes[i];
          values[rows - 1][0][inter + 5 * i] = extremes[i];
        }
        const auto gu = values.to(dtype);
        REQUIRE(ops::swiglu_token_supported(gu));
        const auto out = ops::swiglu_token(gu);
        const auto expect = at::silu(gu.narrow(-1, 0, inter)) * gu.narrow(-1, inter, inter);
        REQUIRE(out.sizes() == expect.sizes());
        CHECK(same_values(out, expect));
        CHECK(at::isnan(expect).sum().item<int64_t>() <= 2);  // only from -inf gates
      }
    }
  }
  // NaN in, NaN out (ATen's vector conversion and c10's scalar one differ in NaN's payload).
  auto with_nan = at::randn({2, 1, 256});
  with_nan[1][0][7] = std::numeric_limits<float>::quiet_NaN();
  with_nan[0][0][128 + 9] = std::numeric_limits<float>::quiet_NaN();
  for (auto dtype : {at::kFloat, at::kBFloat16}) {
    const auto out = ops::swiglu_token(with_nan.to(dtype)).to(at::kFloat);
    CHECK(std::isnan(out[1][0][7].item<float>()));
    CHECK(std::isnan(out[0][0][9].item<float>()));
    CHECK(at::isnan(out).sum().item<int64_t>() == 2);
  }
  // Prompts (several tokens), odd sizes and non-contiguous halves take the ATen ops.
  CHECK_FALSE(ops::swiglu_token_supported(at::randn({1, 2, 256})));
  CHECK_FALSE(ops::swiglu_token_supported(at::randn({1, 1, 96})));
  CHECK_FALSE(ops::swiglu_token_supported(at::randn({2, 1, 512}).narrow(-1, 0, 256)));
  CHECK_FALSE(ops::swiglu_token_supported(at::randn({1, 1, 256}).to(at::kHalf)));
}

TEST_CASE("The fused SwiGLU MLP is the unfused one for a decode step and a prompt", "[ops]") {
  at::manual_seed(42);
  const int64_t h = 64, inter = 192;
  const auto w_gate = at::randn({inter, h}) * 0.1, w_up = at::randn({inter, h}) * 0.1, w_down = at::randn({h, inter}) * 0.1;
  const auto w_gate_up = at::cat({w_gate, w_up}, 0);
  for (int64_t tokens : {1, 5}) {
    const auto x = at::randn({3, tokens, h});
    const auto fused = ops::swiglu_mlp_fused(x, w_gate_up, w_down);
    const auto plain = ops::swiglu_mlp(x, w_gate, w_up, w_down);
    CHECK(at::allclose(fused, plain, 1e-5, 1e-5));
  }
}
