#include "models/ops/ops.h"

#include "models/ops/column_sums.h"
#include "models/ops/cudnn_attention.h"
#include "models/ops/decode_attention.h"
#include "models/ops/linear.h"
#include "models/ops/swiglu_token.h"
#include "models/ops/token_ops.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ripplekv::ops {

at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  if (rms_norm_token_supported(x, weight)) return rms_norm_token(x, weight, eps);  // one token per sequence
  auto xf = x.to(at::kFloat);
  auto normed = xf * at::rsqrt(xf.pow(2).mean(-1, /*keepdim=*/true) + eps);
  return weight * normed.to(x.scalar_type());
}

std::pair<at::Tensor, at::Tensor> rope_cos_sin(const at::Tensor& inv_freq, const at::Tensor& positions) {
  auto pos = positions.to(at::kFloat);
  at::Tensor freqs;
  if (pos.dim() == 1) {
    freqs = at::outer(pos, inv_freq);  // [T, D/2]
  } else {
    freqs = pos.unsqueeze(-1) * inv_freq;  // [B, T, D/2]
    freqs = freqs.unsqueeze(1);            // [B, 1, T, D/2]
  }
  auto emb = at::cat({freqs, freqs}, -1);
  return {emb.cos(), emb.sin()};
}

static at::Tensor rotate_half(const at::Tensor& x) {
  const int64_t half = x.size(-1) / 2;
  auto x1 = x.narrow(-1, 0, half);
  auto x2 = x.narrow(-1, half, half);
  return at::cat({-x2, x1}, -1);
}

at::Tensor apply_rope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  // Same rounding as HF: cos/sin are made in float32 and cast to the activations' dtype.
  auto c = cos.to(x.scalar_type());
  auto s = sin.to(x.scalar_type());
  return x * c + rotate_half(x) * s;
}

at::Tensor swiglu_mlp(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up,
                      const at::Tensor& w_down) {
  auto gate = at::silu(at::linear(x, w_gate));
  return at::linear(gate * at::linear(x, w_up), w_down);
}

namespace {

at::Tensor swiglu_mlp_block(const at::Tensor& x, const at::Tensor& w_gate_up, const at::Tensor& w_down) {
  auto gu = ops::linear(x, w_gate_up);
  if (swiglu_token_supported(gu)) return ops::linear(swiglu_token(gu), w_down);  // a decode step
  const int64_t inter = w_gate_up.size(0) / 2;
  return ops::linear(at::silu(gu.narrow(-1, 0, inter)) * gu.narrow(-1, inter, inter), w_down);
}

}  // namespace

at::Tensor swiglu_mlp_fused(const at::Tensor& x, const at::Tensor& w_gate_up, const at::Tensor& w_down,
                            int64_t block_rows) {
  const int64_t width = x.size(-1);
  const int64_t rows = width > 0 ? x.numel() / width : 0;
  if (block_rows <= 0 || rows < 2 * block_rows) return swiglu_mlp_block(x, w_gate_up, w_down);
  const auto flat = x.reshape({rows, width});
  auto out = at::empty({rows, w_down.size(0)}, x.options());
  const int64_t blocks = rows / block_rows;
  for (int64_t i = 0; i < blocks; ++i) {
    const int64_t first = i * block_rows;
    const int64_t n = i + 1 == blocks ? rows - first : block_rows;
    out.narrow(0, first, n).copy_(swiglu_mlp_block(flat.narrow(0, first, n), w_gate_up, w_down));
  }
  auto shape = x.sizes().vec();
  shape.back() = w_down.size(0);
  return out.view(shape);
}

at::Tensor repeat_kv(const at::Tensor& x, int64_t n_rep) {
  if (n_rep == 1) return x;
  const auto b = x.size(0), h = x.size(1), t = x.size(2), d = x.size(3);
  return x.unsqueeze(2).expand({b, h, n_rep, t, d}).reshape({b, h * n_rep, t, d});
}

namespace {

int64_t group_size(const AttentionInputs& in) {
  const auto hq = in.q.size(1), hkv = in.k.size(1);
  if (hkv <= 0 || hq % hkv != 0) {
    throw std::invalid_argument("attention: query heads must be a multiple of KV heads");
  }
  return hq / hkv;
}

// Visibility mask [B, Hq, Tq, Tk] from absolute positions (true = may attend).
at::Tensor position_mask(const AttentionInputs& in, int64_t n_rep, int64_t first_query) {
  auto qp = in.q_pos.narrow(0, first_query, in.q_pos.size(0) - first_query);
  auto mask = in.k_pos.unsqueeze(2) <= qp.view({1, 1, -1, 1});  // [B, Hkv, Tq, Tk]
  return n_rep == 1 ? mask : mask.repeat_interleave(n_rep, 1);
}

}  // namespace

at::Tensor causal_attention(const AttentionInputs& in) {
  const int64_t n_rep = group_size(in);
  const int64_t b = in.q.size(0), hq = in.q.size(1), tq = in.q.size(2), d = in.q.size(3);
  const int64_t hkv = in.k.size(1), tk = in.k.size(2);
  if (tq == 1) {
    // Decoding: the newest token sees every cached key. Fold the query heads of a GQA group
    // into the query axis so the cache is read once per KV head and never repeated.
    auto q = in.q.reshape({b, hkv, n_rep, d});
    if (decode_attention_supported(q, in.k, in.v)) {
      return decode_attention(q, in.k, in.v, in.key_mask).reshape({b, hq, 1, d});
    }
    std::optional<at::Tensor> mask;
    if (in.key_mask.defined()) mask = in.key_mask.view({b, 1, 1, tk});
    NoCudnnAttention no_cudnn(q.is_cuda());  // a new key length every step (cudnn_attention.h)
    auto out = at::scaled_dot_product_attention(q, in.k, in.v, mask);
    return out.reshape({b, hq, 1, d});
  }
  auto k = repeat_kv(in.k, n_rep);
  auto v = repeat_kv(in.v, n_rep);
  if (in.keys_are_prefix && tq == tk) {
    return at::scaled_dot_product_attention(in.q, k, v, /*attn_mask=*/{}, 0.0, /*is_causal=*/true);
  }
  // Queries after a compressed or partly filled cache: explicit mask, in query chunks so
  // the mask stays small.
  const int64_t chunk = 1024;
  NoCudnnAttention no_cudnn(in.q.is_cuda());  // key lengths differ by layer and by prompt
  std::vector<at::Tensor> outs;
  for (int64_t s = 0; s < tq; s += chunk) {
    const int64_t n = std::min(chunk, tq - s);
    AttentionInputs part = in;
    part.q = in.q.narrow(2, s, n);
    part.q_pos = in.q_pos.narrow(0, s, n);
    auto mask = position_mask(part, n_rep, 0);
    outs.push_back(at::scaled_dot_product_attention(part.q, k, v, mask));
  }
  return outs.size() == 1 ? outs[0] : at::cat(outs, 2);
}

at::Tensor window_attention_probs(const AttentionInputs& in, int64_t window) {
  const int64_t n_rep = group_size(in);
  const int64_t tq = in.q.size(2);
  if (window <= 0 || window > tq) {
    throw std::invalid_argument("window_attention_probs: window must be in [1, number of queries]");
  }
  auto q = in.q.narrow(2, tq - window, window).to(at::kFloat);
  auto k = repeat_kv(in.k, n_rep).to(at::kFloat);
  auto scores = at::matmul(q, k.transpose(-1, -2)) / std::sqrt(static_cast<double>(in.q.size(3)));
  auto mask = position_mask(in, n_rep, tq - window);
  scores.masked_fill_(mask.logical_not(), -std::numeric_limits<float>::infinity());
  return at::softmax(scores, -1);
}

at::Tensor attention_column_sums(const AttentionInputs& in, int64_t window, int64_t chunk) {
  const int64_t tq = in.q.size(2);
  if (window <= 0 || window > tq) {
    throw std::invalid_argument("attention_column_sums: window must be in [1, number of queries]");
  }
  if (chunk <= 0) throw std::invalid_argument("attention_column_sums: chunk must be >= 1");
  if (!in.keys_are_prefix || in.key_mask.defined()) {
    at::Tensor total;
    for (int64_t s = tq - window; s < tq; s += chunk) {
      const int64_t n = std::min(chunk, tq - s);
      AttentionInputs part = in;
      part.q = in.q.narrow(2, 0, s + n);  // queries up to the chunk's end; the last n are used
      part.q_pos = in.q_pos.narrow(0, 0, s + n);
      auto sums = window_attention_probs(part, n).sum(2);
      total = total.defined() ? total + sums : sums;
    }
    return total;
  }
  // A bfloat16 prompt on a CPU with AVX512_BF16: one fused pass (models/ops/column_sums.h).
  if (column_sums_fused_supported(in.q, in.k)) return column_sums_fused(in.q, in.k, window);
  // Keys 0..Tk-1 in order, the queries the last Tq of them (a prompt's prefill): the queries of
  // a chunk ending at query e see only the first Tk - Tq + e keys, so each chunk's scores cover
  // those alone (about half the work of masking all Tk), with the causal rule as one [n, keys]
  // mask shared by every head. GQA groups are folded into the query axis, so keys are converted
  // to float once and never repeated.
  const int64_t n_rep = group_size(in);
  const int64_t b = in.q.size(0), hq = in.q.size(1), d = in.q.size(3);
  const int64_t hkv = in.k.size(1), tk = in.k.size(2);
  const auto k = in.k.to(at::kFloat);
  const double scale = std::sqrt(static_cast<double>(d));
  auto total = at::zeros({b, hq, tk}, in.q.options().dtype(at::kFloat));
  // Every key before a chunk's first query is visible to the whole chunk, so only the chunk's
  // own n x n diagonal block needs the causal mask (strictly above the diagonal is hidden).
  at::Tensor hidden_block;
  for (int64_t s = tq - window; s < tq; s += chunk) {
    const int64_t n = std::min(chunk, tq - s);
    const int64_t keys = tk - tq + s + n;
    auto q = in.q.narrow(2, s, n).to(at::kFloat).reshape({b, hkv, n_rep * n, d});
    auto scores = at::matmul(q, k.narrow(2, 0, keys).transpose(-1, -2)).div_(scale).view({b, hq, n, keys});
    if (!hidden_block.defined() || hidden_block.size(0) != n) {
      hidden_block = at::ones({n, n}, in.q_pos.options().dtype(at::kBool)).triu(1);
    }
    scores.narrow(-1, keys - n, n).masked_fill_(hidden_block, -std::numeric_limits<float>::infinity());
    total.narrow(2, 0, keys).add_(at::softmax(scores, -1).sum(2));
  }
  return total;
}

}  // namespace ripplekv::ops
