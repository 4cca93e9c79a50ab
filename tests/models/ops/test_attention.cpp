// The attention paths of models/ops against a naive loop written from the definition. The
// model's parity with HF covers these paths end to end; here each one is pinned down alone,
// including the cases a compressed cache creates (keys that are not a prefix: gaps, per-head
// positions) and GQA.
#include "catch_torch.h"

#include <cmath>
#include <limits>
#include <vector>

#include "models/ops/cudnn_attention.h"
#include "models/ops/ops.h"

using namespace ripplekv;
using namespace ripplekv::ops;

namespace {

// Attention probabilities of query i of head h over keys, from the definition, in double:
// query i sees key j iff k_pos[b, h / group, j] <= q_pos[i].
std::vector<double> naive_probs(const AttentionInputs& in, int64_t b, int64_t h, int64_t i) {
  const auto q = in.q.to(at::kDouble), k = in.k.to(at::kDouble);
  const int64_t group = in.q.size(1) / in.k.size(1), kvh = h / group, tk = in.k.size(2), d = in.q.size(3);
  std::vector<double> s(static_cast<std::size_t>(tk), -INFINITY);
  double mx = -INFINITY;
  for (int64_t j = 0; j < tk; ++j) {
    if (in.k_pos[b][kvh][j].item<int64_t>() > in.q_pos[i].item<int64_t>()) continue;
    double dot = 0;
    for (int64_t x = 0; x < d; ++x) dot += q[b][h][i][x].item<double>() * k[b][kvh][j][x].item<double>();
    s[static_cast<std::size_t>(j)] = dot / std::sqrt(static_cast<double>(d));
    mx = std::max(mx, s[static_cast<std::size_t>(j)]);
  }
  double z = 0;
  for (auto& v : s) {
    v = std::isinf(v) ? 0.0 : std::exp(v - mx);
    z += v;
  }
  for (auto& v : s) v /= z;
  return s;
}

at::Tensor naive_attention(const AttentionInputs& in) {
  const auto v = in.v.to(at::kDouble);
  const int64_t B = in.q.size(0), Hq = in.q.size(1), Tq = in.q.size(2), D = in.q.size(3);
  const int64_t group = Hq / in.k.size(1);
  auto out = at::zeros({B, Hq, Tq, D}, at::kDouble);
  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < Hq; ++h) {
      for (int64_t i = 0; i < Tq; ++i) {
        const auto p = naive_probs(in, b, h, i);
        for (int64_t j = 0; j < static_cast<int64_t>(p.size()); ++j) {
          if (p[static_cast<std::size_t>(j)] == 0) continue;
          out[b][h][i] += p[static_cast<std::size_t>(j)] * v[b][h / group][j];
        }
      }
    }
  }
  return out;
}

AttentionInputs random_inputs(int64_t B, int64_t Hq, int64_t Hkv, int64_t Tq, int64_t Tk, int64_t D) {
  AttentionInputs in;
  in.q = at::randn({B, Hq, Tq, D});
  in.k = at::randn({B, Hkv, Tk, D});
  in.v = at::randn({B, Hkv, Tk, D});
  in.q_pos = at::arange(Tk - Tq, Tk, at::kLong);
  in.k_pos = at::arange(Tk, at::kLong).view({1, 1, Tk}).expand({B, Hkv, Tk}).contiguous();
  return in;
}

}  // namespace

TEST_CASE("causal_attention equals the naive loop: prefill, decode, GQA, and compressed (non-prefix) keys",
          "[ops][attention]") {
  at::manual_seed(5);
  SECTION("prefill and decode with the prefix fast path") {
    for (int64_t tq : {9, 1}) {
      const auto in = random_inputs(2, 4, 2, tq, 9, 8);
      CHECK(at::allclose(causal_attention(in).to(at::kDouble), naive_attention(in), 1e-5, 1e-5));
    }
  }
  SECTION("keys with gaps and different positions per KV head, as after compression") {
    auto in = random_inputs(2, 6, 3, 3, 7, 8);
    in.keys_are_prefix = false;
    // Each (batch, KV head) kept different prompt positions; the 3 queries are positions 20..22.
    in.q_pos = at::tensor(std::vector<int64_t>{20, 21, 22}, at::kLong);
    in.k_pos = std::get<0>(at::randint(0, 20, {2, 3, 7}, at::kLong).sort(-1)).contiguous();
    in.k_pos.select(2, 6).fill_(21);  // one key a query must not see (position 21 > 20)
    CHECK(at::allclose(causal_attention(in).to(at::kDouble), naive_attention(in), 1e-5, 1e-5));
  }
}

TEST_CASE("Window attention and chunked column sums equal the naive probabilities", "[ops][attention]") {
  at::manual_seed(9);
  auto in = random_inputs(1, 4, 2, 11, 11, 8);
  const int64_t window = 4;
  const auto probs = window_attention_probs(in, window);  // [B, Hq, W, Tk]
  REQUIRE(probs.sizes() == at::IntArrayRef({1, 4, window, 11}));
  auto expected_sums = at::zeros({1, 4, 11}, at::kDouble);
  for (int64_t h = 0; h < 4; ++h) {
    for (int64_t w = 0; w < window; ++w) {
      const auto p = naive_probs(in, 0, h, 11 - window + w);
      for (int64_t j = 0; j < 11; ++j) {
        CHECK(probs[0][h][w][j].item<double>() == Approx(p[static_cast<std::size_t>(j)]).margin(1e-6));
        expected_sums[0][h][j] += p[static_cast<std::size_t>(j)];
      }
    }
  }
  for (int64_t chunk : {1, 3, 256}) {
    INFO("chunk " << chunk);
    CHECK(at::allclose(attention_column_sums(in, window, chunk).to(at::kDouble), expected_sums, 1e-5, 1e-6));
  }
  // The whole prompt as the window (H2O): every column sum of a causal softmax adds up to Tq.
  CHECK(attention_column_sums(in, 11, 4).sum().item<double>() == Approx(4 * 11.0).epsilon(1e-5));
}

TEST_CASE("Column sums: the prefill fast path equals the general position-masked path", "[ops][attention]") {
  at::manual_seed(13);
  // GQA 3 query heads per KV head, queries the last 13 of 17 keys (a prompt after a cached
  // prefix), head size 8; windows and chunks that do and do not divide the queries.
  auto in = random_inputs(2, 6, 2, 13, 17, 8);
  auto general = in;
  general.keys_are_prefix = false;  // same keys and positions, the path that masks all keys
  for (int64_t window : {1, 5, 13}) {
    for (int64_t chunk : {1, 4, 256}) {
      INFO("window " << window << " chunk " << chunk);
      const auto fast = attention_column_sums(in, window, chunk);
      REQUIRE(fast.sizes() == at::IntArrayRef({2, 6, 17}));
      CHECK(at::allclose(fast, attention_column_sums(general, window, chunk), 1e-5, 1e-6));
      // Masking only each chunk's diagonal block changes no bit: the same chunked scores with
      // the causal mask over every key give exactly the same sums.
      const int64_t tq = 13, tk = 17;
      auto full_mask = at::zeros({2, 6, tk}, at::kFloat);
      const auto kf = in.k.to(at::kFloat);
      for (int64_t s = tq - window; s < tq; s += chunk) {
        const int64_t n = std::min(chunk, tq - s), keys = tk - tq + s + n;
        auto q = in.q.narrow(2, s, n).to(at::kFloat).reshape({2, 2, 3 * n, 8});
        auto scores = at::matmul(q, kf.narrow(2, 0, keys).transpose(-1, -2)).div_(std::sqrt(8.0)).view({2, 6, n, keys});
        const auto visible = at::arange(keys).view({1, keys}) <= at::arange(tk - tq + s, tk - tq + s + n).view({n, 1});
        scores.masked_fill_(visible.logical_not(), -std::numeric_limits<float>::infinity());
        full_mask.narrow(2, 0, keys).add_(at::softmax(scores, -1).sum(2));
      }
      CHECK(at::equal(fast, full_mask));
    }
  }
  CHECK_THROWS_WITH(attention_column_sums(in, 5, 0), Catch::Contains("chunk must be >= 1"));
}

TEST_CASE("Decode attention (one query per sequence) equals the naive loop: float32, bfloat16, padded rows, "
          "strided cache views",
          "[ops][attention]") {
  at::manual_seed(9);
  // Head sizes 64 and 128 (the CPU decode kernel's shapes), 300 keys (more than one key
  // block), GQA groups of 3, keys read through a narrowed capacity buffer as the cache holds
  // them, and a padded batch: row 1's first 100 slots are padding (masked, position INT64_MAX).
  for (const int64_t d : {64, 128}) {
    const int64_t B = 2, Hkv = 2, Hq = 6, T = 300;
    auto in = random_inputs(B, Hq, Hkv, 1, T, d);
    auto kbuf = at::randn({B, Hkv, T + 40, d}), vbuf = at::randn({B, Hkv, T + 40, d});
    in.k = kbuf.narrow(2, 0, T);
    in.v = vbuf.narrow(2, 0, T);
    in.key_mask = at::ones({B, 1, T}, at::kBool);
    in.key_mask[1].narrow(1, 0, 100).fill_(false);
    in.k_pos.select(0, 1).narrow(1, 0, 100).fill_(std::numeric_limits<int64_t>::max());
    in.k.select(0, 1).narrow(1, 0, 100).zero_();
    in.v.select(0, 1).narrow(1, 0, 100).zero_();
    const auto expected = naive_attention(in);
    INFO("head size " << d);
    CHECK(at::allclose(causal_attention(in).to(at::kDouble), expected, 1e-5, 1e-5));
    // bfloat16: inputs rounded to bfloat16, the result within bfloat16 rounding of the exact
    // attention of those inputs.
    AttentionInputs bf = in;
    bf.q = in.q.to(at::kBFloat16);
    bf.k = in.k.to(at::kBFloat16);
    bf.v = in.v.to(at::kBFloat16);
    AttentionInputs rounded = in;
    rounded.q = bf.q.to(at::kFloat);
    rounded.k = bf.k.to(at::kFloat);
    rounded.v = bf.v.to(at::kFloat);
    const auto exact = naive_attention(rounded);
    const auto got = causal_attention(bf);
    CHECK(got.scalar_type() == at::kBFloat16);
    CHECK((got.to(at::kDouble) - exact).abs().max().item<double>() <= 2e-2 * exact.abs().max().item<double>());
    // and no worse than LibTorch's own bfloat16 attention of the same inputs
    const auto torch_bf = at::scaled_dot_product_attention(
        bf.q.reshape({B, Hkv, 3, d}), bf.k, bf.v, bf.key_mask.view({B, 1, 1, T})).reshape({B, Hq, 1, d});
    CHECK((got.to(at::kDouble) - exact).abs().max().item<double>() <=
          1.5 * (torch_bf.to(at::kDouble) - exact).abs().max().item<double>() + 1e-6);
  }
}

TEST_CASE("NoCudnnAttention turns ATen's cuDNN attention off on CUDA only, for its scope, and restores it",
          "[ops][attention]") {
  auto& ctx = at::globalContext();
  const bool before = ctx.userEnabledCuDNNSDP();
  ctx.setSDPUseCuDNN(true);
  {
    NoCudnnAttention cpu(false);  // a CPU call: nothing changes
    CHECK(ctx.userEnabledCuDNNSDP());
  }
  {
    NoCudnnAttention cuda(true);
    CHECK_FALSE(ctx.userEnabledCuDNNSDP());
    {
      NoCudnnAttention nested(true);  // restores what it found (off), not "on"
      CHECK_FALSE(ctx.userEnabledCuDNNSDP());
    }
    CHECK_FALSE(ctx.userEnabledCuDNNSDP());
  }
  CHECK(ctx.userEnabledCuDNNSDP());
  set_cudnn_attention_everywhere(true);  // ripplekv_bench --cudnn-attention-everywhere
  {
    NoCudnnAttention cuda(true);
    CHECK(ctx.userEnabledCuDNNSDP());
  }
  set_cudnn_attention_everywhere(false);
  CHECK_FALSE(cudnn_attention_everywhere());
  ctx.setSDPUseCuDNN(before);
}
