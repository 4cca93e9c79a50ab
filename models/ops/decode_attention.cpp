#include "models/ops/decode_attention.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

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
// float32 lanes of ATen's widest CPU vector (AVX-512; 8 with AVX2): its softmax reduces rows at
// least one vector long as vectors, shorter ones lane by lane.
constexpr int64_t kSoftmaxVector = 16;

// The 16 lane sums of each of a[0..15], in one vector (element n: the sum of a[n]), each added
// up in the order GCC's _mm512_reduce_add_ps adds one vector's lanes (a[i] + a[i + 8], then
// + 4, then + 2, then + 1), so each sum has its bits. Four rounds each add two half-vectors
// shuffled from two inputs: 46 instructions for the 16 sums instead of about 160.
RIPPLEKV_AVX512 inline __m512 reduce_add_16(const __m512* a) {
  __m512 s1[8], s2[4], s3[2];
  for (int p = 0; p < 8; ++p) {  // [a.lo256 + a.hi256, b.lo256 + b.hi256] for a = a[2p], b = a[2p + 1]
    const __m512 lo = _mm512_shuffle_f32x4(a[2 * p], a[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 hi = _mm512_shuffle_f32x4(a[2 * p], a[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2));
    s1[p] = _mm512_add_ps(hi, lo);
  }
  for (int p = 0; p < 4; ++p) {  // each 256-bit half's lanes i + (i + 4): key 4p + m in 128-bit lane m
    const __m512 lo = _mm512_shuffle_f32x4(s1[2 * p], s1[2 * p + 1], _MM_SHUFFLE(2, 0, 2, 0));
    const __m512 hi = _mm512_shuffle_f32x4(s1[2 * p], s1[2 * p + 1], _MM_SHUFFLE(3, 1, 3, 1));
    s2[p] = _mm512_add_ps(hi, lo);
  }
  for (int p = 0; p < 2; ++p) {  // lanes i + (i + 2) of each 128-bit lane, two keys per lane
    const __m512 x = _mm512_shuffle_ps(s2[2 * p], s2[2 * p + 1], _MM_SHUFFLE(1, 0, 1, 0));
    const __m512 y = _mm512_shuffle_ps(s2[2 * p], s2[2 * p + 1], _MM_SHUFFLE(3, 2, 3, 2));
    s3[p] = _mm512_add_ps(x, y);
  }
  const __m512 x = _mm512_shuffle_ps(s3[0], s3[1], _MM_SHUFFLE(2, 0, 2, 0));
  const __m512 y = _mm512_shuffle_ps(s3[0], s3[1], _MM_SHUFFLE(3, 1, 3, 1));
  // Element 4m + t now holds key m + 4t.
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_ps(order, _mm512_add_ps(x, y));
}

// scores[bh, r, j] for the keys of block `blk` of sequence-head bh.
// A row padded on the left by `shift` slots is stored rotated: key j at j - shift, the padding
// at the end (see run()); the padding's scores are -inf, its keys never read.
// Keys go 16 at a time: widened to float32 once for all r_len query rows, each key's 16 lane
// sums reduced together (reduce_add_16); the keys left over one at a time. Either way a score
// is the same sum in the same order: mul, then fmadd over the head's 16-lane chunks, then the
// lanes added as _mm512_reduce_add_ps adds them, times the scale.
template <typename T>
RIPPLEKV_AVX512 void score_block(const float* q, const T* k, int64_t k_row_stride, const bool* mask, float* scores,
                                 int64_t r_len, int64_t d, int64_t t_len, int64_t j0, int64_t j1, float scale,
                                 int64_t shift) {
  const int64_t chunks = d / 16;
  // A batch of variants pads each row to its layer's longest (a quarter of the keys of the
  // benchmark's 16-row step). A score has the same bits computed alone or among 16 keys, so
  // starting the 16-key groups at the first real key changes none.
  if (shift > j0) {
    const int64_t pad_end = std::min(j1, shift);
    for (int64_t r = 0; r < r_len; ++r) {
      std::fill(scores + r * t_len + j0 - shift + t_len, scores + r * t_len + pad_end - shift + t_len,
                -std::numeric_limits<float>::infinity());
    }
    j0 = pad_end;
  }
  int64_t j = j0;
  alignas(64) float kf[16 * kMaxHeadDim];
  for (; j + 16 <= j1; j += 16) {
    __mmask16 masked = 0;
    for (int n = 0; n < 16; ++n) {
      const T* kr = k + (j + n) * k_row_stride;
      for (int64_t c = 0; c < chunks; ++c) _mm512_store_ps(kf + n * d + c * 16, load16(kr + c * 16));
      if (mask && !mask[j + n]) masked = static_cast<__mmask16>(masked | (1u << n));
    }
    for (int64_t r = 0; r < r_len; ++r) {
      const float* qr = q + r * d;
      __m512 acc[16];
      const __m512 q0 = _mm512_loadu_ps(qr);
      for (int n = 0; n < 16; ++n) acc[n] = _mm512_mul_ps(_mm512_load_ps(kf + n * d), q0);
      for (int64_t c = 1; c < chunks; ++c) {
        const __m512 qc = _mm512_loadu_ps(qr + c * 16);
        for (int n = 0; n < 16; ++n) acc[n] = _mm512_fmadd_ps(_mm512_load_ps(kf + n * d + c * 16), qc, acc[n]);
      }
      __m512 sums = _mm512_mul_ps(reduce_add_16(acc), _mm512_set1_ps(scale));
      sums = _mm512_mask_blend_ps(masked, sums, _mm512_set1_ps(-std::numeric_limits<float>::infinity()));
      _mm512_storeu_ps(scores + r * t_len + j - shift, sums);
    }
  }
  for (; j < j1; ++j) {
    float* out = scores + j - shift;
    if (mask && !mask[j]) {
      for (int64_t r = 0; r < r_len; ++r) out[r * t_len] = -std::numeric_limits<float>::infinity();
      continue;
    }
    const T* kr = k + j * k_row_stride;
    __m512 kv[kMaxHeadDim / 16];
    for (int64_t c = 0; c < chunks; ++c) kv[c] = load16(kr + c * 16);
    for (int64_t r = 0; r < r_len; ++r) {
      const float* qr = q + r * d;
      __m512 acc = _mm512_mul_ps(kv[0], _mm512_loadu_ps(qr));
      for (int64_t c = 1; c < chunks; ++c) acc = _mm512_fmadd_ps(kv[c], _mm512_loadu_ps(qr + c * 16), acc);
      out[r * t_len] = _mm512_reduce_add_ps(acc) * scale;
    }
  }
}

// out[r, c0 .. c0 + 16 * LANES) = sum_j probs[r, j - shift] * v[j, c0 ..] for the RS rows r,
// over the keys j from `shift` on (the padding slots before them carry probability 0). RS and
// LANES are compile-time, so the RS x LANES sums stay in registers.
template <typename T, int RS, int LANES>
RIPPLEKV_AVX512 void weigh_rows(const float* probs, const T* v, int64_t v_row_stride, float* out, int64_t d,
                                int64_t t_len, int64_t c0, int64_t shift) {
  __m512 acc[RS][LANES];
  for (int r = 0; r < RS; ++r) {
    for (int l = 0; l < LANES; ++l) acc[r][l] = _mm512_setzero_ps();
  }
  for (int64_t j = shift; j < t_len; ++j) {
    const T* vr = v + j * v_row_stride + c0;
    __m512 vv[LANES];
    for (int l = 0; l < LANES; ++l) vv[l] = load16(vr + 16 * l);
    for (int r = 0; r < RS; ++r) {
      const __m512 p = _mm512_set1_ps(probs[r * t_len + j - shift]);
      for (int l = 0; l < LANES; ++l) acc[r][l] = _mm512_fmadd_ps(p, vv[l], acc[r][l]);
    }
  }
  for (int r = 0; r < RS; ++r) {
    for (int l = 0; l < LANES; ++l) _mm512_storeu_ps(out + r * d + c0 + 16 * l, acc[r][l]);
  }
}

// weigh_rows<T, rows, LANES> for rows = RS, RS - 1, ..., 1.
template <typename T, int LANES, int RS>
RIPPLEKV_AVX512 void weigh_some_rows(int64_t rows, const float* probs, const T* v, int64_t v_row_stride, float* out,
                                     int64_t d, int64_t t_len, int64_t c0, int64_t shift) {
  if constexpr (RS > 0) {
    if (rows == RS) return weigh_rows<T, RS, LANES>(probs, v, v_row_stride, out, d, t_len, c0, shift);
    weigh_some_rows<T, LANES, RS - 1>(rows, probs, v, v_row_stride, out, d, t_len, c0, shift);
  }
}

// weigh_rows for any number of rows, as many at a time as 24 vectors of sums hold.
template <typename T, int LANES>
RIPPLEKV_AVX512 void weigh_values(const float* probs, const T* v, int64_t v_row_stride, float* out, int64_t r_len,
                                  int64_t d, int64_t t_len, int64_t c0, int64_t shift) {
  constexpr int kRows = std::min(8, 24 / LANES);
  for (int64_t r0 = 0; r0 < r_len; r0 += kRows) {
    weigh_some_rows<T, LANES, kRows>(std::min<int64_t>(kRows, r_len - r0), probs + r0 * t_len, v, v_row_stride,
                                     out + r0 * d, d, t_len, c0, shift);
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
  // A batch pads shorter sequences on the left (masked slots). Each such row of scores is
  // stored rotated, its keys first and the padding (-inf) last, and the values are weighed from
  // its first key on: the softmax then reduces the same values in the same lanes as for the
  // sequence decoded alone (zeros added for the padding change no sum), so a batched row has
  // exactly the bits of the one-sequence result. A mask that is not a padded prefix is used as is.
  std::vector<int64_t> shift(static_cast<std::size_t>(b), 0);
  for (int64_t bi = 0; mp && bi < b; ++bi) {
    const bool* row = mp + bi * mask.stride(0);
    int64_t pad = 0;
    while (pad < t_len && !row[pad]) ++pad;
    if (pad < t_len && std::all_of(row + pad, row + t_len, [](bool x) { return x; })) shift[static_cast<std::size_t>(bi)] = pad;
  }
  const int64_t blocks = (t_len + kKeyBlock - 1) / kKeyBlock;
  at::parallel_for(0, bh * blocks, 1, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t i = u / blocks, blk = u % blocks, bi = i / h, hi = i % h;
      const T* kb = kp + bi * k.stride(0) + hi * k.stride(1);
      score_block(qp + i * r_len * d, kb, k.stride(2), mp ? mp + bi * mask.stride(0) : nullptr,
                  sp + i * r_len * t_len, r_len, d, t_len, blk * kKeyBlock, std::min(t_len, (blk + 1) * kKeyBlock),
                  scale, shift[static_cast<std::size_t>(bi)]);
    }
  });
  const auto probs = at::softmax(scores, -1);
  // A row shorter than one vector register is reduced lane by lane, not as a vector: redo a
  // padded sequence whose keys are that few on its keys alone (rare: few keys in a layer).
  for (int64_t bi = 0; bi < b; ++bi) {
    const int64_t s0 = shift[static_cast<std::size_t>(bi)], keys = t_len - s0;
    if (s0 == 0 || keys >= kSoftmaxVector) continue;
    auto rows = probs.narrow(0, bi * h, h);
    rows.narrow(2, 0, keys).copy_(at::softmax(scores.narrow(0, bi * h, h).narrow(2, 0, keys).contiguous(), -1));
    rows.narrow(2, keys, s0).zero_();
  }
  const float* pp = probs.data_ptr<float>();
  auto out = at::empty({b, h, r_len, d}, q.options().dtype(at::kFloat));
  float* op = out.data_ptr<float>();
  // Each task weighs whole value rows (up to 128 lanes; wider heads in equal slices of 128, 64
  // or 32 lanes). Two tasks reading alternate 64-byte lines of the same rows brought every line
  // in from memory twice: the pass took 2.3x as long at 8k keys on SmolLM2's shape. Only where
  // there are fewer rows' worth of tasks than threads are the rows split further, down to one
  // 64-byte line per task. The slicing changes no sum (each lane is its own).
  int64_t slice = d <= 128 ? d : d % 128 == 0 ? 128 : d % 64 == 0 ? 64 : 32;
  const int64_t min_slice = 64 / static_cast<int64_t>(sizeof(T));
  while (bh * (d / slice) < at::get_num_threads() && slice / 2 >= min_slice && (slice / 2) % 16 == 0 &&
         d % (slice / 2) == 0) {
    slice /= 2;
  }
  const int64_t slices = d / slice;
  at::parallel_for(0, bh * slices, 1, [&](int64_t u0, int64_t u1) {
    for (int64_t u = u0; u < u1; ++u) {
      const int64_t i = u / slices, c = u % slices, bi = i / h, hi = i % h;
      const T* vb = vp + bi * v.stride(0) + hi * v.stride(1);
      const float* probs_i = pp + i * r_len * t_len;
      float* out_i = op + i * r_len * d;
      const int64_t s0 = shift[static_cast<std::size_t>(bi)];
      switch (slice / 16) {  // lanes of 16
        case 1: weigh_values<T, 1>(probs_i, vb, v.stride(2), out_i, r_len, d, t_len, c * slice, s0); break;
        case 2: weigh_values<T, 2>(probs_i, vb, v.stride(2), out_i, r_len, d, t_len, c * slice, s0); break;
        case 3: weigh_values<T, 3>(probs_i, vb, v.stride(2), out_i, r_len, d, t_len, c * slice, s0); break;
        case 4: weigh_values<T, 4>(probs_i, vb, v.stride(2), out_i, r_len, d, t_len, c * slice, s0); break;
        case 6: weigh_values<T, 6>(probs_i, vb, v.stride(2), out_i, r_len, d, t_len, c * slice, s0); break;
        default: weigh_values<T, 8>(probs_i, vb, v.stride(2), out_i, r_len, d, t_len, c * slice, s0); break;
      }
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
  RECORD_FUNCTION("ripplekv::decode_attention", c10::ArrayRef<const c10::IValue>{});
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
