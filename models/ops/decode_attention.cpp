#include "models/ops/decode_attention.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "models/ops/cpu_features.h"

namespace ripplekv::ops {

namespace {

#if defined(__x86_64__)

// 16 lanes of a row, widened to float32.
RIPPLEKV_AVX512 inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
RIPPLEKV_AVX512 inline __m512 load16(const at::BFloat16* p) { return load_bf16x16(p); }

constexpr int64_t kKeyBlock = 256;
constexpr int64_t kMaxHeadDim = 256;

// scores[bh, r, j] for the keys of block `blk` of sequence-head bh.
template <typename T>
RIPPLEKV_AVX512 void score_block(const float* q, const T* k, int64_t k_row_stride, const bool* mask, float* scores,
                                 int64_t r_len, int64_t d, int64_t t_len, int64_t j0, int64_t j1, float scale) {
  for (int64_t j = j0; j < j1; ++j) {
    float* out = scores + j;
    if (mask && !mask[j]) {
      for (int64_t r = 0; r < r_len; ++r) out[r * t_len] = -std::numeric_limits<float>::infinity();
      continue;
    }
    const T* kr = k + j * k_row_stride;
    __m512 kv[kMaxHeadDim / 16];
    for (int64_t c = 0; c < d / 16; ++c) kv[c] = load16(kr + c * 16);
    for (int64_t r = 0; r < r_len; ++r) {
      const float* qr = q + r * d;
      __m512 acc = _mm512_mul_ps(kv[0], _mm512_loadu_ps(qr));
      for (int64_t c = 1; c < d / 16; ++c) acc = _mm512_fmadd_ps(kv[c], _mm512_loadu_ps(qr + c * 16), acc);
      out[r * t_len] = _mm512_reduce_add_ps(acc) * scale;
    }
  }
}

// out[r, c0 .. c0 + 16 * lanes) = sum_j probs[r, j] * v[j, c0 ..] for all r.
template <typename T>
RIPPLEKV_AVX512 void weigh_values(const float* probs, const T* v, int64_t v_row_stride, float* out, int64_t r_len,
                                  int64_t d, int64_t t_len, int64_t c0, int64_t lanes) {
  constexpr int kMaxR = 16;
  for (int64_t r_start = 0; r_start < r_len; r_start += kMaxR) {
    const int64_t rs = std::min<int64_t>(kMaxR, r_len - r_start);
    __m512 acc[kMaxR][2];
    for (int64_t r = 0; r < rs; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int64_t j = 0; j < t_len; ++j) {
      const T* vr = v + j * v_row_stride + c0;
      const __m512 v0 = load16(vr);
      const __m512 v1 = lanes > 1 ? load16(vr + 16) : _mm512_setzero_ps();
      for (int64_t r = 0; r < rs; ++r) {
        const __m512 p = _mm512_set1_ps(probs[(r_start + r) * t_len + j]);
        acc[r][0] = _mm512_fmadd_ps(p, v0, acc[r][0]);
        if (lanes > 1) acc[r][1] = _mm512_fmadd_ps(p, v1, acc[r][1]);
      }
    }
    for (int64_t r = 0; r < rs; ++r) {
      _mm512_storeu_ps(out + (r_start + r) * d + c0, acc[r][0]);
      if (lanes > 1) _mm512_storeu_ps(out + (r_start + r) * d + c0 + 16, acc[r][1]);
    }
  }
}

template <typename T>
at::Tensor run(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& key_mask) {
  const int64_t b = q.size(0), h = q.size(1), r_len = q.size(2), d = q.size(3), t_len = k.size(2);
  const int64_t bh = b * h;
  const auto qf = q.to(at::kFloat).contiguous();
  auto scores = at::empty({bh, r_len, t_len}, q.options().dtype(at::kFloat));
  const at::Tensor mask = key_mask.defined() ? key_mask.contiguous() : at::Tensor();
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  const T* kp = k.data_ptr<T>();
  const T* vp = v.data_ptr<T>();
  const float* qp = qf.data_ptr<float>();
  float* sp = scores.data_ptr<float>();
  const bool* mp = mask.defined() ? mask.data_ptr<bool>() : nullptr;
  const int64_t blocks = (t_len + kKeyBlock - 1) / kKeyBlock;
  at::parallel_for(0, bh * blocks, 1, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t i = u / blocks, blk = u % blocks, bi = i / h, hi = i % h;
      const T* kb = kp + bi * k.stride(0) + hi * k.stride(1);
      score_block(qp + i * r_len * d, kb, k.stride(2), mp ? mp + bi * mask.stride(0) : nullptr,
                  sp + i * r_len * t_len, r_len, d, t_len, blk * kKeyBlock, std::min(t_len, (blk + 1) * kKeyBlock),
                  scale);
    }
  });
  const auto probs = at::softmax(scores, -1);
  const float* pp = probs.data_ptr<float>();
  auto out = at::empty({b, h, r_len, d}, q.options().dtype(at::kFloat));
  float* op = out.data_ptr<float>();
  const int64_t slice = std::is_same<T, float>::value ? 16 : 32;  // 64 bytes of a value row
  const int64_t slices = d / slice;
  at::parallel_for(0, bh * slices, 1, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t i = u / slices, c = u % slices, bi = i / h, hi = i % h;
      const T* vb = vp + bi * v.stride(0) + hi * v.stride(1);
      weigh_values(pp + i * r_len * t_len, vb, v.stride(2), op + i * r_len * d, r_len, d, t_len, c * slice,
                   slice / 16);
    }
  });
  return out.to(q.scalar_type());
}
#endif

}  // namespace

bool decode_attention_supported(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) {
#if defined(__x86_64__)
  if (!cpu_has_avx512() || !q.is_cpu() || !k.is_cpu() || !v.is_cpu()) return false;
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || at::in_parallel_region()) return false;
  const auto dt = k.scalar_type();
  if ((dt != at::kFloat && dt != at::kBFloat16) || q.scalar_type() != dt || v.scalar_type() != dt) return false;
  const int64_t d = q.size(3);
  if (d % 32 != 0 || d > kMaxHeadDim || k.size(3) != d || v.size(3) != d) return false;
  if (k.size(0) != q.size(0) || k.size(1) != q.size(1) || v.sizes() != k.sizes()) return false;
  return k.stride(3) == 1 && v.stride(3) == 1 && k.size(2) > 0;
#else
  (void)q;
  (void)k;
  (void)v;
  return false;
#endif
}

at::Tensor decode_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& key_mask) {
#if defined(__x86_64__)
  return k.scalar_type() == at::kFloat ? run<float>(q, k, v, key_mask) : run<at::BFloat16>(q, k, v, key_mask);
#else
  (void)q;
  (void)k;
  (void)v;
  (void)key_mask;
  return {};
#endif
}

}  // namespace ripplekv::ops
