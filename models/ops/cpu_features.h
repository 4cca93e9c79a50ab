#pragma once
// What the CPU kernels of models/ops need to know about the host: whether AVX-512 (F, BW, VL)
// is there, whether it has the bfloat16 dot-product instruction (AVX512_BF16), and how a
// bfloat16 vector widens to float32. Header-only and torch-free; the
// vector helpers exist on x86-64 only and are compiled for AVX-512 whatever the build flags,
// so callers must check cpu_has_avx512() before running them.

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#define RIPPLEKV_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl")))
#define RIPPLEKV_AVX512_BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))
#endif

namespace ripplekv::ops {

// The environment variable RIPPLEKV_CPU_ISA caps what the kernels use, as ATEN_CPU_CAPABILITY
// does for ATen: `avx512` (no BF16 dot products: the float32-FMA arithmetic of older AVX-512
// CPUs, bit for bit), `avx2` (no AVX-512 kernels: ATen's, with bfloat16 products of many rows
// widened to float32, ripplekv's side of an x86-64 CPU without AVX-512) or `none` (ATen's
// kernels only); unset or `avx512_bf16`, what the CPU has. The bits of bfloat16 decoding depend
// on the arithmetic, so `avx512` reproduces on one CPU what another computes; `avx2` did not
// reproduce an AVX2 EPYC's bits on an AVX-512 Xeon (scripts/results/avx2_repro.sh), presumably
// because ATen, oneDNN or MKL pick some kernels by the CPU itself, whatever their caps say.
// Programs call it once at start, so that a bad value is an error there.
inline int cpu_isa_cap() {  // 0 none, 1 avx2, 2 avx512, 3 avx512_bf16
  static const int cap = [] {
    const char* v = std::getenv("RIPPLEKV_CPU_ISA");
    const std::string s = v ? v : "";
    if (s.empty() || s == "avx512_bf16") return 3;
    if (s == "avx512") return 2;
    if (s == "avx2") return 1;
    if (s == "none") return 0;
    throw std::invalid_argument("RIPPLEKV_CPU_ISA=" + s +
                                " is not one of avx512_bf16, avx512, avx2, none (unset it to use what the CPU has)");
  }();
  return cap;
}

#if defined(__x86_64__)
inline bool cpu_has_avx512() {
  static const bool has = cpu_isa_cap() >= 2 && __builtin_cpu_supports("avx512f") &&
                          __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return has;
}

// AVX512_BF16 (vdpbf16ps: 32 bfloat16 products per instruction into 16 float32 sums).
inline bool cpu_has_avx512_bf16() {
  static const bool has = cpu_isa_cap() >= 3 && cpu_has_avx512() && __builtin_cpu_supports("avx512bf16");
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

// 16 float32 values rounded to bfloat16 as c10::BFloat16 rounds one (to nearest even, NaN to
// 0x7FC0), as the bfloat16 bit patterns in 32-bit lanes.
RIPPLEKV_AVX512 inline __m512i bf16_bits(__m512 v) {
  const __m512i u = _mm512_castps_si512(v);
  const __m512i bias =
      _mm512_add_epi32(_mm512_and_si512(_mm512_srli_epi32(u, 16), _mm512_set1_epi32(1)), _mm512_set1_epi32(0x7FFF));
  const __m512i r = _mm512_srli_epi32(_mm512_add_epi32(u, bias), 16);
  return _mm512_mask_mov_epi32(r, _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), _mm512_set1_epi32(0x7FC0));
}
// The same, back as float32 (round_to<at::BFloat16> of each lane).
RIPPLEKV_AVX512 inline __m512 bf16_rounded(__m512 v) {
  return _mm512_castsi512_ps(_mm512_slli_epi32(bf16_bits(v), 16));
}

// The 16 rounded values stored as bfloat16 at p (any alignment).
RIPPLEKV_AVX512 inline void store_bf16x16(void* p, __m512 v) {
  _mm256_storeu_si256(static_cast<__m256i*>(p), _mm512_cvtepi32_epi16(bf16_bits(v)));
}
#else
inline bool cpu_has_avx512() { return false; }
inline bool cpu_has_avx512_bf16() { return false; }
#endif

// Whether bfloat16 products of many rows are widened to float32 (x86-64 without AVX-512 or
// RIPPLEKV_CPU_ISA=avx2; not with `none`), where ATen's bfloat16 GEMM is slow (models/ops/linear.h).
inline bool cpu_widens_bf16_products() {
#if defined(__x86_64__)
  return cpu_isa_cap() >= 1 && !cpu_has_avx512();
#else
  return false;
#endif
}

// The arithmetic ripplekv's CPU kernels run here for bfloat16 or float32 models, which the bits of
// the results follow; run folders record it beside ATen's own (info.cpu_kernels):
//   avx512_bf16        (bfloat16) the AVX-512 kernels with bfloat16 dot products;
//   avx512             the AVX-512 kernels with float32 FMAs (RIPPLEKV_CPU_ISA=avx512 gives it on
//                      any AVX-512 CPU);
//   aten+widened_bf16  (bfloat16) no AVX-512 (or RIPPLEKV_CPU_ISA=avx2): bfloat16 prompt products
//                      of 16 rows or more widened to float32 (cpu_widens_bf16_products), ATen's
//                      kernels elsewhere;
//   aten               no AVX-512 kernels and no widening (RIPPLEKV_CPU_ISA=none, float32 without
//                      AVX-512, or a CPU that is not x86-64).
inline const char* cpu_kernel_arithmetic(bool bfloat16) {
  if (bfloat16 && cpu_has_avx512_bf16()) return "avx512_bf16";
  if (cpu_has_avx512()) return "avx512";
  if (bfloat16 && cpu_widens_bf16_products()) return "aten+widened_bf16";
  return "aten";
}

}  // namespace ripplekv::ops
