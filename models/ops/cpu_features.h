#pragma once
// What the CPU kernels of models/ops need to know about the host: whether AVX-512 (F, BW, VL)
// is there, and how a bfloat16 vector widens to float32. Header-only and torch-free; the
// vector helpers exist on x86-64 only and are compiled for AVX-512 whatever the build flags,
// so callers must check cpu_has_avx512() before running them.

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#define RIPPLEKV_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#endif

namespace ripplekv::ops {

#if defined(__x86_64__)
inline bool cpu_has_avx512() {
  static const bool has = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                          __builtin_cpu_supports("avx512vl");
  return has;
}

// 16 bfloat16 values -> 16 float32 (exact: a 16-bit shift of the bits).
RIPPLEKV_AVX512 inline __m512 widen_bf16(__m256i bf16) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bf16), 16));
}

// 16 bfloat16 values at p (any alignment), widened.
RIPPLEKV_AVX512 inline __m512 load_bf16x16(const void* p) {
  return widen_bf16(_mm256_loadu_si256(static_cast<const __m256i*>(p)));
}
#else
inline bool cpu_has_avx512() { return false; }
#endif

}  // namespace ripplekv::ops
