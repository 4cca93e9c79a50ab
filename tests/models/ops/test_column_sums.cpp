// The fused bfloat16 column sums (models/ops/column_sums.cpp, H2O's accumulated attention)
// against the same sums computed in double precision from the same bfloat16 inputs, and
// against ATen's float32 path: the values, the top keys H2O would keep, and thread-count
// independence, for shapes around the kernel's tiles (32 keys, 8 queries, 2 query ranges).
#include "catch_torch.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <limits>

#include "models/ops/column_sums.h"
#include "models/ops/cpu_features.h"
#include "models/ops/ops.h"

using namespace ripplekv;

namespace {

// Sums over the last `window` of tq queries of the causal softmax over tk keys, in double.
at::Tensor reference_sums(const at::Tensor& q, const at::Tensor& k, int64_t window) {
  const int64_t hq = q.size(1), hkv = k.size(1), tq = q.size(2), tk = k.size(2), d = q.size(3);
  const auto kd = ops::repeat_kv(k, hq / hkv).to(at::kDouble);
  auto scores = at::matmul(q.to(at::kDouble), kd.transpose(-1, -2)) / std::sqrt(static_cast<double>(d));
  const auto hidden = at::arange(tk).view({1, tk}) > at::arange(tk - tq, tk).view({tq, 1});
  scores.masked_fill_(hidden, -std::numeric_limits<double>::infinity());
  return at::softmax(scores, -1).narrow(2, tq - window, window).sum(2);
}

}  // namespace

TEST_CASE("Fused bfloat16 column sums equal double-precision sums and keep the same top keys", "[ops][attention]") {
  at::manual_seed(17);
  const auto f32 = at::randn({1, 2, 8, 8});
  CHECK_FALSE(ops::column_sums_fused_supported(f32, f32));  // float32 takes ATen's path
  const auto odd = at::randn({1, 2, 8, 7}).to(at::kBFloat16);
  CHECK_FALSE(ops::column_sums_fused_supported(odd, odd));  // no bfloat16 pairs in an odd head size
  if (!ops::cpu_has_avx512_bf16()) {
    WARN("no AVX512_BF16 on this CPU: bfloat16 column sums take ATen's float32 path");
    return;
  }
  const int before = at::get_num_threads();
  struct Shape {
    int64_t b, hq, hkv, tq, tk, d;
  };
  // GQA 3 and 1; head sizes 64 (SmolLM2) and 8; keys around a 32-key tile; queries after a
  // cached prefix (tq < tk) and a whole prompt.
  for (const Shape s : {Shape{1, 9, 3, 300, 300, 64}, Shape{2, 4, 4, 13, 45, 8}, Shape{1, 6, 2, 64, 64, 64},
                        Shape{1, 3, 1, 7, 33, 64}}) {
    const auto q = (at::randn({s.b, s.hq, s.tq, s.d}) * 2).to(at::kBFloat16);
    const auto k = (at::randn({s.b, s.hkv, s.tk, s.d}) * 2).to(at::kBFloat16);
    REQUIRE(ops::column_sums_fused_supported(q, k));
    for (int64_t window : {int64_t{1}, s.tq / 2 + 1, s.tq}) {
      INFO("shape hq " << s.hq << " hkv " << s.hkv << " tq " << s.tq << " tk " << s.tk << " d " << s.d << " window "
                       << window);
      at::set_num_threads(1);
      const auto fused = ops::column_sums_fused(q, k, window);
      REQUIRE(fused.sizes() == at::IntArrayRef({s.b, s.hq, s.tk}));
      REQUIRE(fused.scalar_type() == at::kFloat);
      const auto expected = reference_sums(q, k, window);
      CHECK(at::allclose(fused.to(at::kDouble), expected, 2e-5, 1e-7));
      // Every query's probabilities add up to 1.
      CHECK(fused.sum().item<double>() == Approx(static_cast<double>(s.b * s.hq * window)).epsilon(1e-5));
      // ATen's float32 path (what attention_column_sums runs without the kernel) is no closer.
      const auto k_pos = at::arange(s.tk).expand({s.b, s.hkv, s.tk}).contiguous();
      ops::AttentionInputs in{q, k, k, at::arange(s.tk - s.tq, s.tk), k_pos, false, at::Tensor()};
      const auto aten = ops::attention_column_sums(in, window);
      const double fused_err = (fused.to(at::kDouble) - expected).abs().max().item<double>();
      const double aten_err = (aten.to(at::kDouble) - expected).abs().max().item<double>();
      CHECK(fused_err <= 4 * aten_err + 1e-7);
      // The keys H2O would keep: the same top quarter as the double-precision sums.
      const int64_t keep = std::max<int64_t>(1, s.tk / 4);
      const auto top = std::get<1>(fused.topk(keep, -1)).sort(-1);
      const auto top_expected = std::get<1>(expected.topk(keep, -1)).sort(-1);
      CHECK(at::equal(std::get<0>(top), std::get<0>(top_expected)));
      // The same bits on any number of threads.
      for (int threads : {2, 3}) {
        at::set_num_threads(threads);
        CHECK(at::equal(ops::column_sums_fused(q, k, window), fused));
      }
      // attention_column_sums takes the kernel for a bfloat16 prompt.
      in.keys_are_prefix = true;
      CHECK(at::equal(ops::attention_column_sums(in, window), ops::column_sums_fused(q, k, window)));
    }
  }
  // The model's operands are views: q a transposed slice of the fused projection, k the first
  // Tk slots of a cache buffer with room for more. They give the sums of contiguous copies.
  at::set_num_threads(before);
  const auto qkv = at::randn({1, 40, (6 + 2 * 2) * 64}).to(at::kBFloat16);
  const auto q_view = qkv.narrow(-1, 0, 6 * 64).view({1, 40, 6, 64}).transpose(1, 2);
  const auto buffer = at::randn({1, 2, 100, 64}).to(at::kBFloat16);
  const auto k_view = buffer.narrow(2, 0, 40);
  REQUIRE_FALSE(q_view.is_contiguous());
  REQUIRE_FALSE(k_view.is_contiguous());
  CHECK(at::equal(ops::column_sums_fused(q_view, k_view, 40),
                  ops::column_sums_fused(q_view.contiguous(), k_view.contiguous(), 40)));
  CHECK(at::allclose(ops::column_sums_fused(q_view, k_view, 17).to(at::kDouble), reference_sums(q_view, k_view, 17),
                     2e-5, 1e-7));
  // Operands it does not serve are an error, not a wrong answer.
  CHECK_THROWS_WITH(ops::column_sums_fused(q_view, k_view, 41), Catch::Contains("window must be in [1, Tq]"));
  CHECK_THROWS_WITH(ops::column_sums_fused(f32, f32, 1), Catch::Contains("must be CPU bfloat16"));
}
