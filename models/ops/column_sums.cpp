#include "models/ops/column_sums.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "models/ops/cpu_features.h"

namespace ripplekv::ops {

namespace {

#if defined(__x86_64__)

constexpr int64_t kKeys = 32;   // keys per tile: two vectors of 16 scores
constexpr int64_t kRows = 8;    // queries per tile; each loaded key vector serves all of them
constexpr int64_t kSplits = 2;  // query ranges per head, summed at the end (a fixed number, so
                                // the bits do not depend on the number of threads)

// exp(x) for float32 x <= 0: Cephes' expf (range reduction by ln 2 in two parts, a degree-5
// polynomial, within 2 ulp), and exactly 0 below -87.3, where float32's normal range ends
// (so masked keys at -inf give 0).
RIPPLEKV_AVX512_BF16 inline __m512 exp_nonpositive(__m512 x) {
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)),
                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  __m512 p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  const __mmask16 live = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-87.3f), _CMP_GE_OQ);
  return _mm512_maskz_mov_ps(live, _mm512_scalef_ps(p, n));
}

// Scores of R queries (bfloat16 pairs, row stride `pairs`) against keys [0, keys) (a multiple
// of kKeys), times `scale`, into s (row stride `stride`). kb holds the keys in tiles of kKeys:
// tile g is [pairs][kKeys] pairs, so one tile's keys are contiguous. Each score is the sum of
// the exact products in float32, two products per lane and instruction.
template <int R>
RIPPLEKV_AVX512_BF16 void score_rows(const uint32_t* q, int64_t pairs, const uint32_t* kb, int64_t keys,
                                     float scale, float* s, int64_t stride) {
  for (int64_t j = 0; j < keys; j += kKeys) {
    const uint32_t* tile = kb + j * pairs;
    __m512 acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int64_t p = 0; p < pairs; ++p) {
      const auto k0 = (__m512bh)_mm512_loadu_si512(tile + p * kKeys);
      const auto k1 = (__m512bh)_mm512_loadu_si512(tile + p * kKeys + 16);
      for (int r = 0; r < R; ++r) {
        const auto qv = (__m512bh)_mm512_set1_epi32(static_cast<int>(q[r * pairs + p]));
        acc[r][0] = _mm512_dpbf16_ps(acc[r][0], qv, k0);
        acc[r][1] = _mm512_dpbf16_ps(acc[r][1], qv, k1);
      }
    }
    const __m512 sc = _mm512_set1_ps(scale);
    for (int r = 0; r < R; ++r) {
      _mm512_storeu_ps(s + r * stride + j, _mm512_mul_ps(acc[r][0], sc));
      _mm512_storeu_ps(s + r * stride + j + 16, _mm512_mul_ps(acc[r][1], sc));
    }
  }
}

// The softmax of one query's scores over its `visible` keys, added to col (each key's sum).
RIPPLEKV_AVX512_BF16 void add_probabilities(float* s, int64_t visible, float* col) {
  const __m512 minus_inf = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  auto lanes = [&](int64_t j) {
    return static_cast<__mmask16>(visible - j >= 16 ? 0xFFFF : (1u << (visible - j)) - 1u);
  };
  __m512 m = minus_inf;
  for (int64_t j = 0; j < visible; j += 16) m = _mm512_max_ps(m, _mm512_mask_loadu_ps(minus_inf, lanes(j), s + j));
  const __m512 row_max = _mm512_set1_ps(_mm512_reduce_max_ps(m));
  __m512 sum = _mm512_setzero_ps();
  for (int64_t j = 0; j < visible; j += 16) {
    const __mmask16 live = lanes(j);
    const __m512 e = exp_nonpositive(_mm512_sub_ps(_mm512_mask_loadu_ps(minus_inf, live, s + j), row_max));
    _mm512_mask_storeu_ps(s + j, live, e);
    sum = _mm512_add_ps(sum, e);
  }
  const __m512 inv = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum));
  for (int64_t j = 0; j < visible; j += 16) {
    const __mmask16 live = lanes(j);
    const __m512 c = _mm512_maskz_loadu_ps(live, col + j);
    _mm512_mask_storeu_ps(col + j, live, _mm512_fmadd_ps(_mm512_maskz_loadu_ps(live, s + j), inv, c));
  }
}

// Queries [r0, r1) of one head: first_visible is how many keys query 0 sees (Tk - Tq + 1).
RIPPLEKV_AVX512_BF16 void column_sums_rows(const uint32_t* q, const uint32_t* kb, int64_t pairs, int64_t r0,
                                           int64_t r1, int64_t first_visible, float scale, float* col,
                                           std::vector<float>& s, int64_t stride) {
  for (int64_t r = r0; r < r1; r += kRows) {
    const int64_t rows = std::min(kRows, r1 - r);
    const int64_t keys = (first_visible + r + rows - 1 + kKeys - 1) / kKeys * kKeys;
    const uint32_t* qr = q + r * pairs;
    switch (rows) {
      case 8: score_rows<8>(qr, pairs, kb, keys, scale, s.data(), stride); break;
      case 7: score_rows<7>(qr, pairs, kb, keys, scale, s.data(), stride); break;
      case 6: score_rows<6>(qr, pairs, kb, keys, scale, s.data(), stride); break;
      case 5: score_rows<5>(qr, pairs, kb, keys, scale, s.data(), stride); break;
      case 4: score_rows<4>(qr, pairs, kb, keys, scale, s.data(), stride); break;
      case 3: score_rows<3>(qr, pairs, kb, keys, scale, s.data(), stride); break;
      case 2: score_rows<2>(qr, pairs, kb, keys, scale, s.data(), stride); break;
      default: score_rows<1>(qr, pairs, kb, keys, scale, s.data(), stride); break;
    }
    for (int64_t i = 0; i < rows; ++i) add_probabilities(s.data() + i * stride, first_visible + r + i, col);
  }
}

#endif

}  // namespace

bool column_sums_fused_supported(const at::Tensor& q, const at::Tensor& k) {
  if (!q.defined() || !k.defined() || !q.device().is_cpu() || !k.device().is_cpu()) return false;
  if (q.scalar_type() != at::kBFloat16 || k.scalar_type() != at::kBFloat16 || q.dim() != 4 || k.dim() != 4) return false;
  if (q.size(0) != k.size(0) || q.size(3) != k.size(3) || q.size(3) % 2 != 0 || k.size(1) <= 0) return false;
  if (q.size(1) % k.size(1) != 0 || q.size(2) > k.size(2) || q.size(2) == 0) return false;
  return cpu_has_avx512_bf16() && !at::in_parallel_region();
}

at::Tensor column_sums_fused(const at::Tensor& q, const at::Tensor& k, int64_t window) {
  if (!column_sums_fused_supported(q, k)) {
    throw std::invalid_argument("column_sums_fused: q and k must be CPU bfloat16 [B, H, T, D] with an even D, "
                                "Hq a multiple of Hkv and Tq <= Tk, on a CPU with AVX512_BF16");
  }
  if (window < 1 || window > q.size(2)) throw std::invalid_argument("column_sums_fused: window must be in [1, Tq]");
#if defined(__x86_64__)
  const int64_t b = q.size(0), hq = q.size(1), tq = q.size(2), d = q.size(3);
  const int64_t hkv = k.size(1), tk = k.size(2), pairs = d / 2, n_rep = hq / hkv;
  const int64_t tk_pad = (tk + kKeys - 1) / kKeys * kKeys;
  // Queries as bfloat16 pairs [B, Hq, Tq, D/2]; keys in tiles [B, Hkv, Tk/kKeys, D/2, kKeys].
  const auto qp = q.contiguous().view(at::kInt);
  const auto kp = at::constant_pad_nd(k.contiguous().view(at::kInt), {0, 0, 0, tk_pad - tk})
                      .view({b, hkv, tk_pad / kKeys, kKeys, pairs})
                      .transpose(-1, -2)
                      .contiguous();
  auto part = at::zeros({b, hq, kSplits, tk_pad}, q.options().dtype(at::kFloat));
  const auto* qd = reinterpret_cast<const uint32_t*>(qp.data_ptr<int32_t>());
  const auto* kd = reinterpret_cast<const uint32_t*>(kp.data_ptr<int32_t>());
  float* pd = part.data_ptr<float>();
  const int64_t first_visible = tk - tq + 1;
  // Split the window's queries where half the causal work is done (query i scores
  // first_visible + i keys).
  const int64_t w0 = tq - window;
  int64_t split = w0;
  {
    double total = 0, done = 0;
    for (int64_t i = w0; i < tq; ++i) total += static_cast<double>(first_visible + i);
    while (split < tq && done + first_visible + split <= total / 2) done += static_cast<double>(first_visible + split++);
  }
  const int64_t bounds[kSplits + 1] = {w0, split, tq};
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  at::parallel_for(0, b * hq * kSplits, 1, [&](int64_t t0, int64_t t1) {
    std::vector<float> s(static_cast<size_t>(kRows * tk_pad));
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t bh = t / kSplits, part_i = t % kSplits, bi = bh / hq, h = bh % hq;
      const uint32_t* qh = qd + bh * tq * pairs;
      const uint32_t* kh = kd + (bi * hkv + h / n_rep) * tk_pad * pairs;
      column_sums_rows(qh, kh, pairs, bounds[part_i], bounds[part_i + 1], first_visible, scale,
                       pd + t * tk_pad, s, tk_pad);
    }
  });
  static_assert(kSplits == 2, "the parts are summed below");
  return (part.select(2, 0) + part.select(2, 1)).narrow(-1, 0, tk).contiguous();
#else
  (void)q;
  (void)k;
  (void)window;
  return {};
#endif
}

}  // namespace ripplekv::ops
