// The decode step's fused elementwise loops (models/ops/token_ops.cpp) against the ATen ops
// they replace: RoPE bit for bit, RMSNorm within one rounding of the output dtype.
#include "catch_torch.h"

#include <cmath>

#include "models/ops/ops.h"
#include "models/ops/token_ops.h"

using namespace ripplekv;

TEST_CASE("Decode RoPE on q and k from the fused projection equals apply_rope bit for bit", "[ops]") {
  at::manual_seed(31);
  const int64_t b = 3, hq = 9, hkv = 3;
  // Head sizes the bfloat16 vector loop takes (multiples of 32) and one it does not (48).
  for (int64_t d : {64, 32, 48, 128}) {
  const auto inv_freq = 1.0 / at::pow(10000.0, at::arange(0, d, 2, at::kDouble) / d);
  for (auto dtype : {at::kFloat, at::kBFloat16}) {
    for (int64_t pos : {0, 7, 4095, 30000}) {
      INFO("dtype " << dtype << " position " << pos << " head size " << d);
      const auto [cos, sin] = ops::rope_cos_sin(inv_freq.to(at::kFloat), at::tensor({pos}, at::kLong));
      auto values = at::randn({b, 1, (hq + 2 * hkv) * d}) * 3;
      // Extremes: near the largest finite value (products may round to infinity), denormals, zeros.
      const float extremes[] = {3.0e38f, -3.0e38f, 1e-40f, -1e-40f, 0.0f, -0.0f, 1e30f};
      for (int i = 0; i < 7; ++i) {
        values[0][0][i * 5] = extremes[i];
        values[1][0][d / 2 + i] = extremes[i];
      }
      const auto qkv = values.to(dtype);
      REQUIRE(ops::rope_qk_token_supported(qkv, cos));
      const auto [q, k] = ops::rope_qk_token(qkv, cos, sin, hq, hkv, d);
      const auto q_ref = ops::apply_rope(qkv.narrow(-1, 0, hq * d).view({b, 1, hq, d}).transpose(1, 2), cos, sin);
      const auto k_ref = ops::apply_rope(qkv.narrow(-1, hq * d, hkv * d).view({b, 1, hkv, d}).transpose(1, 2), cos, sin);
      REQUIRE(q.sizes() == q_ref.sizes());
      REQUIRE(k.sizes() == k_ref.sizes());
      CHECK(at::equal(q, q_ref));
      CHECK(at::equal(k, k_ref));
    }
  }
  }
  const int64_t d = 64;
  const auto inv_freq = 1.0 / at::pow(10000.0, at::arange(0, d, 2, at::kDouble) / d);
  // A prompt (several tokens) or per-row positions take the ATen ops.
  const auto [cos2, sin2] = ops::rope_cos_sin(inv_freq.to(at::kFloat), at::arange(2, at::kLong));
  CHECK_FALSE(ops::rope_qk_token_supported(at::randn({1, 2, (hq + 2 * hkv) * d}), cos2));
  const auto [cos3, sin3] = ops::rope_cos_sin(inv_freq.to(at::kFloat), at::zeros({2, 1}, at::kLong));
  CHECK_FALSE(ops::rope_qk_token_supported(at::randn({2, 1, (hq + 2 * hkv) * d}), cos3));
  CHECK_THROWS_WITH(ops::rope_qk_token(at::randn({1, 1, 10}), cos2.narrow(0, 0, 1), sin2.narrow(0, 0, 1), hq, hkv, d),
                    Catch::Contains("do not match"));
}

TEST_CASE("Decode RMSNorm equals the ATen formula to one rounding of the output", "[ops]") {
  at::manual_seed(32);
  for (auto dtype : {at::kFloat, at::kBFloat16}) {
    for (int64_t rows : {1, 5, 11}) {
      INFO("dtype " << dtype << " rows " << rows);
      const auto x = (at::randn({rows, 1, 576}) * 4).to(dtype);
      const auto w = (at::rand({576}) + 0.5).to(dtype);
      REQUIRE(ops::rms_norm_token_supported(x, w));
      const auto y = ops::rms_norm(x, w, 1e-5);  // takes the loop
      // HF's formula as ATen ops.
      const auto xf = x.to(at::kFloat);
      const auto ref = w * (xf * at::rsqrt(xf.pow(2).mean(-1, true) + 1e-5)).to(dtype);
      REQUIRE(y.sizes() == ref.sizes());
      REQUIRE(y.scalar_type() == dtype);
      // Each output is within one unit in the last place of the dtype (bfloat16: 2^-7 relative).
      const double ulp = dtype == at::kFloat ? 1e-6 : 1.0 / 128;
      const auto diff = (y.to(at::kDouble) - ref.to(at::kDouble)).abs();
      CHECK((diff <= ref.to(at::kDouble).abs() * ulp + 1e-30).all().item<bool>());
      // Most outputs have the same bits (only the mean's summation order differs). How many
      // depends on how many rows' float32 means happen to equal the double-summed ones (a
      // random draw of 11 rows here: 67% of the outputs), so this is checked on 1 and 5 rows.
      if (rows <= 5) CHECK((y == ref).to(at::kDouble).mean().item<double>() > 0.95);
      // Rows normalised side by side (groups of 8) get the bits each gets alone.
      for (int64_t r = 0; r < rows; ++r) CHECK(at::equal(y[r], ops::rms_norm(x.narrow(0, r, 1), w, 1e-5)[0]));
    }
  }
  // The definition, element by element: the squares summed in double in element order, then
  // x * inv rounded to bfloat16, times the weight, rounded again (row sizes with and without a
  // partial vector of 16).
  for (int64_t h : {576, 100}) {
    const auto x = (at::randn({3, 1, h}) * 4).to(at::kBFloat16);
    const auto w = (at::rand({h}) + 0.5).to(at::kBFloat16);
    const auto y = ops::rms_norm_token(x, w, 1e-5).contiguous();
    const auto* xp = x.data_ptr<at::BFloat16>();
    const auto* wp = w.data_ptr<at::BFloat16>();
    const auto* yp = y.data_ptr<at::BFloat16>();
    int64_t same = 0;
    for (int64_t r = 0; r < 3; ++r) {
      double sum = 0;
      for (int64_t i = 0; i < h; ++i) {
        const float v = static_cast<float>(xp[r * h + i]);
        sum += static_cast<double>(v * v);
      }
      const float inv = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(h)) + 1e-5f);
      for (int64_t i = 0; i < h; ++i) {
        const float normed = static_cast<float>(at::BFloat16(static_cast<float>(xp[r * h + i]) * inv));
        same += at::BFloat16(static_cast<float>(wp[i]) * normed).x == yp[r * h + i].x ? 1 : 0;
      }
    }
    CHECK(same == 3 * h);
  }
  // A prompt keeps the ATen ops.
  CHECK_FALSE(ops::rms_norm_token_supported(at::randn({1, 4, 576}), at::ones({576})));
}
