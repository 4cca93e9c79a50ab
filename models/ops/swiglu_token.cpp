#include "models/ops/swiglu_token.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <cstdint>
#include <type_traits>

#include "models/ops/cpu_features.h"

#if defined(__x86_64__)
// SLEEF's 16-lane exp (1.0 ulp), the function ATen's AVX-512 Vectorized<float>::exp calls.
// Weak: a LibTorch built without exporting it leaves it null, and the ATen ops run instead.
extern "C" __m512 Sleef_expf16_u10(__m512) __attribute__((weak));
#endif

namespace ripplekv::ops {

namespace {

#if defined(__x86_64__)
RIPPLEKV_AVX512 inline __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
RIPPLEKV_AVX512 inline __m512 load16(const at::BFloat16* p) { return load_bf16x16(p); }
RIPPLEKV_AVX512 inline void store16(float* p, __m512 v) { _mm512_storeu_ps(p, v); }
RIPPLEKV_AVX512 inline void store16(at::BFloat16* p, __m512 v) { store_bf16x16(p, v); }

// out[r, i] = silu(gu[r, i]) * gu[r, I + i] for the rows [r0, r1).
template <typename T>
RIPPLEKV_AVX512 void swiglu_rows(const T* gu, T* out, int64_t r0, int64_t r1, int64_t inter) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512i sign = _mm512_set1_epi32(static_cast<int>(0x80000000u));
  for (int64_t r = r0; r < r1; ++r) {
    const T* g = gu + r * 2 * inter;
    const T* u = g + inter;
    T* o = out + r * inter;
    for (int64_t i = 0; i < inter; i += 16) {
      const __m512 x = load16(g + i);
      const __m512 neg = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), sign));  // -x, NaN too
      __m512 silu = _mm512_div_ps(x, _mm512_add_ps(one, Sleef_expf16_u10(neg)));
      if constexpr (std::is_same_v<T, at::BFloat16>) silu = bf16_rounded(silu);  // silu's output dtype
      store16(o + i, _mm512_mul_ps(silu, load16(u + i)));
    }
  }
}
#endif

}  // namespace

bool swiglu_token_supported(const at::Tensor& gu) {
#if defined(__x86_64__)
  if (!cpu_has_avx512() || Sleef_expf16_u10 == nullptr) return false;
  if (!gu.defined() || !gu.device().is_cpu() || gu.dim() < 2 || gu.size(-2) != 1 || !gu.is_contiguous()) return false;
  const auto dt = gu.scalar_type();
  return (dt == at::kFloat || dt == at::kBFloat16) && gu.size(-1) % 128 == 0 && gu.size(-1) > 0;
#else
  (void)gu;
  return false;
#endif
}

at::Tensor swiglu_token(const at::Tensor& gu) {
#if defined(__x86_64__)
  RECORD_FUNCTION("ripplekv::swiglu_token", c10::ArrayRef<const c10::IValue>{});
  const int64_t inter = gu.size(-1) / 2, rows = gu.numel() / gu.size(-1);
  auto sizes = gu.sizes().vec();
  sizes.back() = inter;
  auto out = at::empty(sizes, gu.options());
  // One row's loop is a few microseconds: rows split across threads only in batches.
  at::parallel_for(0, rows, 4, [&](int64_t r0, int64_t r1) {
    if (gu.scalar_type() == at::kFloat) {
      swiglu_rows(gu.data_ptr<float>(), out.data_ptr<float>(), r0, r1, inter);
    } else {
      swiglu_rows(gu.data_ptr<at::BFloat16>(), out.data_ptr<at::BFloat16>(), r0, r1, inter);
    }
  });
  return out;
#else
  (void)gu;
  return {};
#endif
}

}  // namespace ripplekv::ops
