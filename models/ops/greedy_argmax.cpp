#include "models/ops/greedy_argmax.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "models/ops/cpu_features.h"

namespace ripplekv::ops {

namespace {

#if defined(__x86_64__)
RIPPLEKV_AVX512 inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
RIPPLEKV_AVX512 inline __m512 load16(const at::BFloat16* p) { return load_bf16x16(p); }

// The first index of the row's maximum, or of its first NaN. Two passes over a row that stays
// in cache: the maximum (and whether a NaN is there), then the first lane equal to it.
template <typename T>
RIPPLEKV_AVX512 int64_t argmax_row(const T* x, int64_t n) {
  const int64_t vec_end = n - n % 16;
  __m512 m = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
  __mmask16 nan = 0;
  for (int64_t i = 0; i < vec_end; i += 16) {
    const __m512 v = load16(x + i);
    nan = static_cast<__mmask16>(nan | _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q));
    m = _mm512_max_ps(m, v);
  }
  float best = _mm512_reduce_max_ps(m);
  bool has_nan = nan != 0;
  for (int64_t i = vec_end; i < n; ++i) {
    const float v = static_cast<float>(x[i]);
    has_nan = has_nan || std::isnan(v);
    if (v > best) best = v;
  }
  if (has_nan) {
    for (int64_t i = 0; i < n; ++i) {
      if (std::isnan(static_cast<float>(x[i]))) return i;
    }
  }
  // Equal values (+0 and -0 included) tie, and ATen keeps the first of a tie.
  const __m512 b = _mm512_set1_ps(best);
  for (int64_t i = 0; i < vec_end; i += 16) {
    const __mmask16 hit = _mm512_cmp_ps_mask(load16(x + i), b, _CMP_EQ_OQ);
    if (hit != 0) return i + __builtin_ctz(static_cast<unsigned>(hit));
  }
  for (int64_t i = vec_end; i < n; ++i) {
    if (static_cast<float>(x[i]) == best) return i;
  }
  return 0;  // unreachable: some element equals the maximum
}
#endif

}  // namespace

bool greedy_argmax_supported(const at::Tensor& logits) {
  if (!cpu_has_avx512() || !logits.defined() || !logits.device().is_cpu() || logits.dim() < 1) return false;
  const auto dt = logits.scalar_type();
  return (dt == at::kFloat || dt == at::kBFloat16) && logits.is_contiguous() && logits.size(-1) > 0;
}

at::Tensor greedy_argmax(const at::Tensor& logits) {
  if (!greedy_argmax_supported(logits)) return logits.argmax(-1);
#if defined(__x86_64__)
  RECORD_FUNCTION("ripplekv::greedy_argmax", c10::ArrayRef<const c10::IValue>{});
  const int64_t n = logits.size(-1), rows = logits.numel() / n;
  auto sizes = logits.sizes().vec();
  sizes.pop_back();
  auto out = at::empty(sizes, logits.options().dtype(at::kLong));
  int64_t* op = out.data_ptr<int64_t>();
  // A row is tens of microseconds: rows split across threads in batches.
  at::parallel_for(0, rows, 4, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      op[r] = logits.scalar_type() == at::kFloat ? argmax_row(logits.data_ptr<float>() + r * n, n)
                                                 : argmax_row(logits.data_ptr<at::BFloat16>() + r * n, n);
    }
  });
  return out;
#else
  return logits.argmax(-1);
#endif
}

}  // namespace ripplekv::ops
