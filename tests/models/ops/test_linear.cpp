// The decode kernels' batch invariance (models/ops/linear.cpp, models/ops/decode_attention.cpp):
// a bfloat16 batch of single tokens gives each sequence exactly the bits it gets alone, for
// shapes the real-model test does not reach (K not a multiple of 16, N not a multiple of 4,
// biases, any thread count; padded attention rows of every length around a vector and across
// a key block), and the attention against float64 for every head size the kernel takes.
#include "catch_torch.h"

#include <ATen/Parallel.h>

#include <cmath>

#include "models/ops/cpu_features.h"
#include "models/ops/decode_attention.h"
#include "models/ops/linear.h"

using namespace ripplekv;

namespace {
// Whether this CPU runs the decode attention kernel (AVX-512); says so when it does not.
bool decode_kernel_runs() {
  if (ops::cpu_has_avx512()) return true;
  WARN("no AVX-512 on this CPU: decode attention takes SDPA; nothing of the kernel to test");
  return false;
}
}  // namespace

TEST_CASE("Batched bfloat16 linear equals row-by-row linear bit for bit", "[ops][linear][isa]") {
  if (!ops::cpu_has_avx512()) {
    WARN("no AVX-512 on this CPU: both shapes take at::linear; nothing of the batch kernel to test");
    return;
  }
  at::manual_seed(21);
  const int before = at::get_num_threads();
  for (int threads : {1, 2, 3}) {
    at::set_num_threads(threads);
    for (int64_t k : {64, 100, 577}) {
      for (int64_t n : {64, 70, 203}) {
        const auto w = at::randn({n, k}).to(at::kBFloat16);
        const auto bias = at::randn({n}).to(at::kBFloat16);
        for (int64_t rows : {2, 3, 5, 9}) {
          const auto x = at::randn({rows, 1, k}).to(at::kBFloat16);
          REQUIRE(ops::linear_uses_batch_kernel(x, w));
          for (bool with_bias : {false, true}) {
            INFO("threads " << threads << " k " << k << " n " << n << " rows " << rows << " bias " << with_bias);
            const at::Tensor b = with_bias ? bias : at::Tensor();
            const auto batched = ops::linear(x, w, b);
            REQUIRE(batched.sizes() == at::IntArrayRef({rows, 1, n}));
            for (int64_t r = 0; r < rows; ++r) {
              const auto one = x.narrow(0, r, 1);
              REQUIRE(ops::linear_uses_row_kernel(one, w));
              CHECK(at::equal(batched[r], ops::linear(one, w, b)[0]));
            }
            // And within bfloat16 rounding of the float64 product.
            auto exact = at::matmul(x.to(at::kDouble), w.to(at::kDouble).t());
            if (with_bias) exact = exact + b.to(at::kDouble);
            CHECK((batched.to(at::kDouble) - exact).abs().max().item<double>() <=
                  1e-2 * (1 + exact.abs().max().item<double>()));
          }
        }
      }
    }
  }
  at::set_num_threads(before);
}

TEST_CASE("Padded decode attention rows equal each sequence alone bit for bit", "[ops][attention][isa]") {
  if (!decode_kernel_runs()) return;
  at::manual_seed(22);
  const int64_t hkv = 2, rep = 3, d = 64, t = 300;
  // Sequence lengths around one vector of lanes (8, 16), a key block (256) and the whole row.
  const std::vector<int64_t> lengths{1, 7, 8, 15, 16, 17, 40, 255, 257, 300};
  const int64_t b = static_cast<int64_t>(lengths.size());
  const auto q = at::randn({b, hkv, rep, d}).to(at::kBFloat16);
  auto k = at::zeros({b, hkv, t, d}, at::kBFloat16);
  auto v = at::zeros({b, hkv, t, d}, at::kBFloat16);
  auto mask = at::zeros({b, 1, t}, at::kBool);
  std::vector<at::Tensor> ks, vs;
  for (int64_t i = 0; i < b; ++i) {
    const int64_t n = lengths[static_cast<std::size_t>(i)];
    ks.push_back(at::randn({1, hkv, n, d}).to(at::kBFloat16));
    vs.push_back(at::randn({1, hkv, n, d}).to(at::kBFloat16));
    k[i].narrow(1, t - n, n).copy_(ks.back()[0]);  // left padding, as KVCache::stack lays rows out
    v[i].narrow(1, t - n, n).copy_(vs.back()[0]);
    mask[i].narrow(1, t - n, n).fill_(true);
  }
  REQUIRE(ops::decode_attention_supported(q, k, v));
  const auto batched = ops::decode_attention(q, k, v, mask);
  for (int64_t i = 0; i < b; ++i) {
    INFO("sequence of " << lengths[static_cast<std::size_t>(i)] << " keys");
    const auto one = ops::decode_attention(q.narrow(0, i, 1), ks[static_cast<std::size_t>(i)], vs[static_cast<std::size_t>(i)], {});
    CHECK(at::equal(batched[i], one[0]));
  }
  // A mask that is not a left padding (a hole in the middle) is applied as it is.
  auto holed = mask.clone();
  holed[b - 1].narrow(1, 100, 10).fill_(false);
  const auto with_hole = ops::decode_attention(q, k, v, holed);
  const auto kept = at::cat({ks.back().narrow(2, 0, 100), ks.back().narrow(2, 110, 190)}, 2);
  const auto kept_v = at::cat({vs.back().narrow(2, 0, 100), vs.back().narrow(2, 110, 190)}, 2);
  const auto expect = ops::decode_attention(q.narrow(0, b - 1, 1), kept, kept_v, {});
  CHECK((with_hole[b - 1].to(at::kFloat) - expect[0].to(at::kFloat)).abs().max().item<float>() < 2e-2f);
}

TEST_CASE("Decode attention matches float64 attention for every head size and group size", "[ops][attention][isa]") {
  if (!decode_kernel_runs()) return;
  at::manual_seed(23);
  // Head sizes of one value slice (32, 96, 128 lanes) and of several (192: 3 slices of 64,
  // 160: 5 of 32); groups of query heads below, at and above what one pass keeps in registers.
  // float32 caches too, and 1 or 5 threads (more threads than sequence-heads: rows split).
  const int before = at::get_num_threads();
  for (const auto dtype : {at::kBFloat16, at::kFloat})
  for (int threads : {1, 5}) {
  at::set_num_threads(threads);
  for (int64_t d : {32, 96, 128, 160, 192, 224, 256}) {
    for (int64_t rep : {1, 3, 5, 8}) {
      const int64_t hkv = 2, t = 70;
      INFO("head size " << d << ", " << rep << " query heads per KV head, " << dtype << ", " << threads << " threads");
      const auto q = at::randn({2, hkv, rep, d}).to(dtype);
      const auto k = at::randn({2, hkv, t, d}).to(dtype);
      const auto v = at::randn({2, hkv, t, d}).to(dtype);
      auto mask = at::ones({2, 1, t}, at::kBool);
      mask[1].narrow(1, 0, 9).fill_(false);  // the second sequence is 61 keys, padded on the left
      REQUIRE(ops::decode_attention_supported(q, k, v));
      const auto out = ops::decode_attention(q, k, v, mask);
      REQUIRE(out.sizes() == q.sizes());
      // float64 reference of each sequence on its own keys.
      for (int64_t b = 0; b < 2; ++b) {
        const int64_t first = b == 0 ? 0 : 9;
        const auto kb = k[b].narrow(1, first, t - first).to(at::kDouble);
        const auto vb = v[b].narrow(1, first, t - first).to(at::kDouble);
        const auto probs = at::softmax(at::matmul(q[b].to(at::kDouble), kb.transpose(1, 2)) / std::sqrt(double(d)), -1);
        const auto expect = at::matmul(probs, vb);
        CHECK((out[b].to(at::kDouble) - expect).abs().max().item<double>() < 2e-2);
      }
      const auto alone = ops::decode_attention(q.narrow(0, 1, 1), k[1].narrow(1, 9, t - 9).unsqueeze(0),
                                               v[1].narrow(1, 9, t - 9).unsqueeze(0), {});
      CHECK(at::equal(out[1], alone[0]));
    }
  }
  }
  at::set_num_threads(before);
}

TEST_CASE("Float32 one-token linear is the float64 product rounded once", "[ops][linear]") {
  if (!ops::cpu_has_avx512()) {
    WARN("no AVX-512 on this CPU: float32 rows take the BLAS matrix-vector product");
    return;
  }
  at::manual_seed(24);
  const int before = at::get_num_threads();
  for (int threads : {1, 2, 3}) {
    at::set_num_threads(threads);
    for (int64_t k : {16, 100, 577}) {  // a whole vector, and tails of 4 and 1 elements
      const auto w = at::randn({203, k});
      const auto x = at::randn({1, 1, k});
      const auto bias = at::randn({203});
      REQUIRE(ops::linear_uses_row_kernel(x, w));
      for (bool with_bias : {false, true}) {
        INFO("threads " << threads << " k " << k << " bias " << with_bias);
        const at::Tensor b = with_bias ? bias : at::Tensor();
        const auto y = ops::linear(x, w, b);
        REQUIRE(y.sizes() == at::IntArrayRef({1, 1, 203}));
        auto exact = at::matmul(x.to(at::kDouble), w.to(at::kDouble).t());
        if (with_bias) exact = exact + b.to(at::kDouble);
        // Within one float32 rounding of the exact value (plus the float64 sum's error, far below).
        const auto err = (y.to(at::kDouble) - exact).abs() / exact.abs().clamp_min(1e-30);
        CHECK(err.max().item<double>() <= 6e-8);
      }
    }
  }
  at::set_num_threads(before);
}

namespace {
// One query row against one key as the decode kernel defines the score: float32 lane sums of
// the head's 16-lane chunks (a multiply, then fused multiply-adds), the 16 lanes added as GCC's
// _mm512_reduce_add_ps adds them (lane i + lane i + 8, then i + 4, then i + 2, then i + 1),
// times the scale.
float reference_score(const float* q, const float* k, int64_t d, float scale) {
  float acc[16];
  for (int l = 0; l < 16; ++l) acc[l] = k[l] * q[l];
  for (int64_t c = 1; c < d / 16; ++c) {
    for (int l = 0; l < 16; ++l) acc[l] = std::fma(k[c * 16 + l], q[c * 16 + l], acc[l]);
  }
  float t3[8], t6[4];
  for (int i = 0; i < 8; ++i) t3[i] = acc[i + 8] + acc[i];
  for (int i = 0; i < 4; ++i) t6[i] = t3[i + 4] + t3[i];
  const float t80 = t6[0] + t6[2], t81 = t6[1] + t6[3];
  return (t80 + t81) * scale;
}
}  // namespace

TEST_CASE("Decode attention is its scalar definition bit for bit", "[ops][attention][isa]") {
  if (!decode_kernel_runs()) return;
  at::manual_seed(24);
  // Key counts below, at and around 16 (keys are scored 16 at a time, the rest one by one) and
  // across a key block (256); head sizes of 2 to 16 chunks of 16; 1 and 3 query heads per KV head.
  const int before = at::get_num_threads();
  at::set_num_threads(2);
  for (const auto dtype : {at::kBFloat16, at::kFloat})
  for (int64_t d : {32, 64, 96, 128, 256}) {
    for (int64_t rep : {1, 3}) {
      for (int64_t t : {5, 16, 17, 40, 300}) {
        const int64_t b = 2, hkv = 2;
        INFO("head size " << d << ", " << rep << " query heads per KV head, " << t << " keys, " << dtype);
        const auto q = at::randn({b, hkv, rep, d}).to(dtype);
        const auto k = at::randn({b, hkv, t, d}).to(dtype);
        const auto v = at::randn({b, hkv, t, d}).to(dtype);
        REQUIRE(ops::decode_attention_supported(q, k, v));
        const auto out = ops::decode_attention(q, k, v, {});
        const auto qf = q.to(at::kFloat).contiguous(), kf = k.to(at::kFloat).contiguous(),
                   vf = v.to(at::kFloat).contiguous();
        const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
        auto scores = at::empty({b * hkv, rep, t}, at::kFloat);
        for (int64_t i = 0; i < b * hkv; ++i) {
          for (int64_t r = 0; r < rep; ++r) {
            for (int64_t j = 0; j < t; ++j) {
              scores.data_ptr<float>()[(i * rep + r) * t + j] = reference_score(
                  qf.data_ptr<float>() + (i * rep + r) * d, kf.data_ptr<float>() + (i * t + j) * d, d, scale);
            }
          }
        }
        const auto probs = at::softmax(scores, -1);
        auto expect = at::empty({b, hkv, rep, d}, at::kFloat);
        for (int64_t i = 0; i < b * hkv; ++i) {
          for (int64_t r = 0; r < rep; ++r) {
            for (int64_t c = 0; c < d; ++c) {
              float acc = 0;
              for (int64_t j = 0; j < t; ++j) {
                acc = std::fma(probs.data_ptr<float>()[(i * rep + r) * t + j], vf.data_ptr<float>()[(i * t + j) * d + c],
                               acc);
              }
              expect.data_ptr<float>()[(i * rep + r) * d + c] = acc;
            }
          }
        }
        CHECK(at::equal(out, expect.to(dtype)));
      }
    }
  }
  at::set_num_threads(before);
}

TEST_CASE("Bfloat16 prompt products widened to float32 round the float32 product once", "[ops][linear][isa]") {
  at::manual_seed(25);
  const auto bf = at::TensorOptions().dtype(at::kBFloat16);
  const auto x = at::randn({2, 37, 100}, bf);
  const auto big = at::randn({203, 100}, bf), small = at::randn({67, 100}, bf);
  const auto bias = at::randn({67}, bf);
  // The widened path: the float32 product of the exact float32 copies, rounded once; the kept
  // weight buffer, filled by the larger matrix first, gives the smaller one its own values.
  const auto y_big = ops::linear_upcast(x, big);
  const auto y = ops::linear_upcast(x, small, bias);
  REQUIRE(y.scalar_type() == at::kBFloat16);
  REQUIRE(y.sizes() == at::IntArrayRef({2, 37, 67}));
  CHECK(at::equal(y_big, at::linear(x.to(at::kFloat), big.to(at::kFloat)).to(at::kBFloat16)));
  CHECK(at::equal(y, at::linear(x.to(at::kFloat), small.to(at::kFloat), bias.to(at::kFloat)).to(at::kBFloat16)));
  // Within one bfloat16 rounding (2^-8 relative) of the exact product plus the float32 sum's
  // error (1e-5 of the sum of magnitudes bounds it), as ATen's bfloat16 GEMM is.
  const auto xd = x.to(at::kDouble), wd = small.to(at::kDouble), bd = bias.to(at::kDouble);
  const auto exact = at::matmul(xd, wd.t()) + bd;
  const auto tol = exact.abs() / 256 + 1e-5 * (at::matmul(xd.abs(), wd.abs().t()) + bd.abs());
  const auto within = [&](const at::Tensor& t) { return ((t.to(at::kDouble) - exact).abs() <= tol).all().item<bool>(); };
  CHECK(within(y));
  CHECK(within(at::linear(x, small, bias)));  // the reference the bound is modelled on
  // linear() takes it for 16 rows or more on an x86-64 CPU without AVX-512 (or with
  // RIPPLEKV_CPU_ISA=avx2, as the test_models/avx2 run of this case sets), else ATen's GEMM.
  const bool widens = ops::linear_uses_upcast(x, small);
#if defined(__x86_64__)
  CHECK(widens == (ops::cpu_isa_cap() >= 1 && !ops::cpu_has_avx512()));
#else
  CHECK_FALSE(widens);
#endif
  CHECK(at::equal(ops::linear(x, small, bias), widens ? y : at::linear(x, small, bias)));
  CHECK_FALSE(ops::linear_uses_upcast(at::randn({1, ops::kUpcastMinRows - 1, 100}, bf), small));
  CHECK_FALSE(ops::linear_uses_upcast(x.to(at::kFloat), small.to(at::kFloat)));
  CHECK_FALSE(ops::linear_uses_upcast(x, small, bias.to(at::kFloat)));  // mixed dtypes: ATen's error
  if (at::hasCUDA()) CHECK_THROWS(ops::linear_upcast(x.cuda(), small.cuda()));
}
