#include "models/ops/linear.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "models/ops/cpu_features.h"

namespace ripplekv::ops {

namespace {

#if defined(__x86_64__)

// Two arithmetics for dot products of bfloat16 weight rows with one token's activations, both
// summed in float32 vectors and reduced at the end. Each gives an output one fixed instruction
// sequence, whatever the number of inputs sharing a weight block, so a batch gets the bits of
// its sequences decoded one at a time. The kernels below are compiled for AVX512_BF16 but run
// Fp32Fma's instantiation on any AVX-512 CPU: it uses no BF16 instruction.
//
// Bf16Dot (CPUs with AVX512_BF16): vdpbf16ps, 32 products per instruction into 16 lanes; lane l
// sums elements 2l and 2l + 1 of each 32. A product of two bfloat16 is exact in float32;
// denormal inputs count as zero (no activation or weight of a trained model is one).
struct Bf16Dot {
  static constexpr int64_t kStep = 32;
  using X = uint16_t;  // the activations stay bfloat16
  using Vec = __m512bh;
  RIPPLEKV_AVX512_BF16 static Vec load(const uint16_t* p) { return (Vec)_mm512_loadu_si512(p); }
  RIPPLEKV_AVX512_BF16 static Vec load_tail(const uint16_t* p, uint32_t mask) {
    return (Vec)_mm512_maskz_loadu_epi16(mask, p);
  }
  RIPPLEKV_AVX512_BF16 static Vec load_x(const X* p) { return load(p); }
  RIPPLEKV_AVX512_BF16 static Vec load_x_tail(const X* p, uint32_t mask) { return load_tail(p, mask); }
  RIPPLEKV_AVX512_BF16 static __m512 madd(__m512 acc, Vec w, Vec x) { return _mm512_dpbf16_ps(acc, w, x); }
};
// Fp32Fma (AVX-512 without BF16): weights widened to float32 (exactly), activations widened once
// per call, one fmadd per product; lane l sums the elements l, l + 16, ...
struct Fp32Fma {
  static constexpr int64_t kStep = 16;
  using X = float;
  using Vec = __m512;
  RIPPLEKV_AVX512_BF16 static Vec load(const uint16_t* p) { return load_bf16x16(p); }
  RIPPLEKV_AVX512_BF16 static Vec load_tail(const uint16_t* p, uint32_t mask) {
    return widen_bf16(_mm256_maskz_loadu_epi16(static_cast<__mmask16>(mask), p));
  }
  RIPPLEKV_AVX512_BF16 static Vec load_x(const X* p) { return _mm512_loadu_ps(p); }
  RIPPLEKV_AVX512_BF16 static Vec load_x_tail(const X* p, uint32_t mask) {
    return _mm512_maskz_loadu_ps(static_cast<__mmask16>(mask), p);
  }
  RIPPLEKV_AVX512_BF16 static __m512 madd(__m512 acc, Vec w, Vec x) { return _mm512_fmadd_ps(w, x, acc); }
};
// y[m * R + j] = dot(w[j, :], x_m) for R weight rows from w (R = 4 for a batch, 1 for one
// sequence or a thread chunk's last partial block) and MC inputs x_0 .. x_{MC-1} (rows of x,
// stride k_len). Each loaded weight vector serves all MC inputs from registers; every output has
// A's instruction sequence for its own row and input, the same for any R and MC.
//
// Memory order: one row (R = 1) is a single forward stream, which the hardware prefetcher follows
// at the core's full read bandwidth (23 GB/s on one Zen 4 core, as a plain sum of the same
// bytes). R rows read side by side are R streams a row apart, which it follows at half that
// (12 GB/s), so for R > 1 the kernel prefetches itself, kPrefetchAhead bytes ahead of the block
// as if it were read front to back: 19-22 GB/s. (Measured on this project's development VM with
// SmolLM2's 30 layers of weights, 257 MB, one token.)
constexpr int64_t kPrefetchAhead = 4096;

template <class A, int R, int MC>
RIPPLEKV_AVX512_BF16 void dot_rows(const uint16_t* w, const typename A::X* x, float* y, int64_t k_len) {
  const int64_t k_main = k_len / A::kStep * A::kStep;
  const uint32_t tail = static_cast<uint32_t>((uint64_t{1} << (k_len - k_main)) - 1u);
  __m512 acc[MC][R];
  for (int m = 0; m < MC; ++m) {
    for (int j = 0; j < R; ++j) acc[m][j] = _mm512_setzero_ps();
  }
  constexpr int64_t kBytesPerStep = R * A::kStep * 2;  // of the R x k_len block, per step
  for (int64_t k = 0; k < k_main; k += A::kStep) {
    if constexpr (R > 1) {  // a hint only: it changes no result, and never faults
      const char* ahead = reinterpret_cast<const char*>(w) + kPrefetchAhead + k * R * 2;
      for (int64_t b = 0; b < kBytesPerStep; b += 64) _mm_prefetch(ahead + b, _MM_HINT_T0);
    }
    typename A::Vec wv[R];
    for (int j = 0; j < R; ++j) wv[j] = A::load(w + j * k_len + k);
    for (int m = 0; m < MC; ++m) {
      const auto xv = A::load_x(x + m * k_len + k);
      for (int j = 0; j < R; ++j) acc[m][j] = A::madd(acc[m][j], wv[j], xv);
    }
  }
  if (tail) {
    typename A::Vec wv[R];
    for (int j = 0; j < R; ++j) wv[j] = A::load_tail(w + j * k_len + k_main, tail);
    for (int m = 0; m < MC; ++m) {
      const auto xv = A::load_x_tail(x + m * k_len + k_main, tail);
      for (int j = 0; j < R; ++j) acc[m][j] = A::madd(acc[m][j], wv[j], xv);
    }
  }
  for (int m = 0; m < MC; ++m) {
    for (int j = 0; j < R; ++j) y[m * R + j] = _mm512_reduce_add_ps(acc[m][j]);
  }
}

// dot(w, x) + bias for float32 rows w and x: each product of the two, widened to float64, is
// exact there (24 x 24 significand bits); the products are summed in float64 by 16 lanes, the
// bias is added to the sum, and the result is rounded to float32 once. The row is one forward
// stream, and float64 costs nothing: the loop waits on memory.
RIPPLEKV_AVX512 inline __m512d low_half_f64(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
RIPPLEKV_AVX512 inline __m512d high_half_f64(__m512 v) {
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}

RIPPLEKV_AVX512 float dot_f32_row(const float* w, const float* x, int64_t k_len, double bias) {
  __m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
  for (int64_t k = 0; k < k_len; k += 16) {
    const auto mask = static_cast<__mmask16>(k + 16 <= k_len ? 0xffffu : (1u << (k_len - k)) - 1u);
    const __m512 wv = _mm512_maskz_loadu_ps(mask, w + k), xv = _mm512_maskz_loadu_ps(mask, x + k);
    lo = _mm512_fmadd_pd(low_half_f64(wv), low_half_f64(xv), lo);
    hi = _mm512_fmadd_pd(high_half_f64(wv), high_half_f64(xv), hi);
  }
  return static_cast<float>(_mm512_reduce_add_pd(_mm512_add_pd(lo, hi)) + bias);
}
#endif

// Rows per task: an equal share per thread, in multiples of 4 (a batch's row block).
int64_t row_grain(int64_t rows) {
  const int64_t threads = std::max(1, at::get_num_threads());
  return std::max<int64_t>(4, (rows + threads * 4 - 1) / (threads * 4) * 4);
}

// One float32 token: the output rows split across the threads, each row a float64-accumulated
// forward stream (AVX-512), or the BLAS matrix-vector product of each thread's rows (elsewhere).
at::Tensor linear_f32_rows(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  const auto xv = x.reshape({x.size(-1)}).contiguous();
  const int64_t n = w.size(0), k = w.size(1);
  auto out = at::empty({n}, x.options());
#if defined(__x86_64__)
  if (cpu_has_avx512()) {
    const auto b64 = b.defined() ? b.to(at::kDouble).contiguous() : at::Tensor();
    const float* wp = w.data_ptr<float>();
    const float* xp = xv.data_ptr<float>();
    const double* bp = b64.defined() ? b64.data_ptr<double>() : nullptr;
    float* yp = out.data_ptr<float>();
    at::parallel_for(0, n, row_grain(n), [&](int64_t s, int64_t e) {
      for (int64_t r = s; r < e; ++r) yp[r] = dot_f32_row(wp + r * k, xp, k, bp ? bp[r] : 0.0);
    });
    return out;
  }
#endif
  at::parallel_for(0, n, row_grain(n), [&](int64_t s, int64_t e) {
    auto o = out.narrow(0, s, e - s);
    at::mv_out(o, w.narrow(0, s, e - s), xv);
  });
  if (b.defined()) out.add_(b);
  return out;
}

#if defined(__x86_64__)
// One token of each of M sequences (x [M, K]; M = 1 when decoding one sequence), bfloat16 in
// and out, with arithmetic A: each output accumulated in float32 by the same instruction
// sequence whatever M is, the bias added there, and rounded to bfloat16 once (round to nearest
// even, as a cast does). So a batch gives the bits of decoding its sequences one at a time.
// Each block of 4 weight rows is read from memory once and serves every sequence from cache;
// one sequence reads the rows one by one, in memory order.
template <class A>
at::Tensor linear_bf16_tokens(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  const int64_t n = w.size(0), k = w.size(1), m_len = x.numel() / k;
  constexpr bool widen_x = std::is_same_v<typename A::X, float>;
  const auto xs = x.reshape({m_len, k}).to(widen_x ? at::kFloat : at::kBFloat16).contiguous();
  auto out = at::empty({m_len, n}, x.options());
  at::Tensor bias = b.defined() ? b.to(at::kFloat).contiguous() : at::Tensor();
  const auto* wp = reinterpret_cast<const uint16_t*>(w.data_ptr<at::BFloat16>());
  const auto* xp = static_cast<const typename A::X*>(xs.data_ptr());
  const float* bp = bias.defined() ? bias.data_ptr<float>() : nullptr;
  auto* yp = out.data_ptr<at::BFloat16>();
  auto store = [&](const float* acc, int64_t m0, int64_t mc, int64_t r, int64_t rows) {
    for (int64_t m = 0; m < mc; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        const float v = acc[m * rows + i];
        yp[(m0 + m) * n + r + i] = at::BFloat16(bp ? v + bp[r + i] : v);
      }
    }
  };
  at::parallel_for(0, n, row_grain(n), [&](int64_t s, int64_t e) {
    float acc[16];
    for (int64_t r = s; r < e; r += 4) {
      const uint16_t* wb = wp + r * k;
      // One sequence (a single forward stream), or a chunk's last partial block: the rest of the
      // chunk one row at a time.
      if (m_len == 1 || e - r < 4) {
        for (int64_t i = 0; r + i < e; ++i) {
          for (int64_t m = 0; m < m_len; ++m) {
            dot_rows<A, 1, 1>(wb + i * k, xp + m * k, acc, k);
            store(acc, m, 1, r + i, 1);
          }
        }
        break;
      }
      int64_t m = 0;
      for (; m + 4 <= m_len; m += 4) {
        dot_rows<A, 4, 4>(wb, xp + m * k, acc, k);
        store(acc, m, 4, r, 4);
      }
      switch (m_len - m) {
        case 3: dot_rows<A, 4, 3>(wb, xp + m * k, acc, k); break;
        case 2: dot_rows<A, 4, 2>(wb, xp + m * k, acc, k); break;
        case 1: dot_rows<A, 4, 1>(wb, xp + m * k, acc, k); break;
        default: break;
      }
      if (m < m_len) store(acc, m, m_len - m, r, 4);
    }
  });
  return out;
}
#endif

}  // namespace

bool linear_uses_batch_kernel(const at::Tensor& x, const at::Tensor& w) {
  if (!x.device().is_cpu() || !w.device().is_cpu() || x.dim() < 2 || w.dim() != 2) return false;
  if (x.size(-2) != 1 || x.numel() == x.size(-1) || x.size(-1) != w.size(1) || !w.is_contiguous()) return false;
  if (x.size(-1) == 0) return false;
  if (x.scalar_type() != at::kBFloat16 || w.scalar_type() != at::kBFloat16 || w.size(0) < 64) return false;
  return !at::in_parallel_region() && cpu_has_avx512();
}

bool linear_uses_row_kernel(const at::Tensor& x, const at::Tensor& w) {
  if (!x.device().is_cpu() || !w.device().is_cpu() || x.dim() < 1 || w.dim() != 2) return false;
  if (x.numel() != x.size(-1) || x.size(-1) != w.size(1) || !w.is_contiguous() || x.size(-1) == 0) return false;
  if (x.scalar_type() != w.scalar_type() || w.size(0) < 64 || at::in_parallel_region()) return false;
  if (x.scalar_type() == at::kFloat) return cpu_has_avx512() || at::get_num_threads() > 1;
  return x.scalar_type() == at::kBFloat16 && cpu_has_avx512();
}

bool linear_uses_upcast(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
#if defined(__x86_64__)
  if (!cpu_widens_bf16_products()) return false;  // first: every linear call asks
  if (!x.device().is_cpu() || !w.device().is_cpu() || x.dim() < 2 || w.dim() != 2) return false;
  if (x.scalar_type() != at::kBFloat16 || w.scalar_type() != at::kBFloat16 || x.size(-1) != w.size(1)) return false;
  if (b.defined() && b.scalar_type() != at::kBFloat16) return false;  // ATen's error for mixed dtypes
  return x.size(-1) > 0 && x.numel() / x.size(-1) >= kUpcastMinRows && !at::in_parallel_region();
#else
  (void)x;
  (void)w;
  (void)b;
  return false;
#endif
}

at::Tensor linear_upcast(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  // The widened weights go into a buffer kept by the thread (up to 256 MiB: every projection of
  // a 1.5B model; a vocabulary projection above that is widened into a temporary), because a
  // fresh allocation of that size costs about as much as the product on this project's VM.
  TORCH_CHECK(x.is_cpu() && w.is_cpu() && (!b.defined() || b.is_cpu()), "linear_upcast: CPU tensors only");
  constexpr int64_t kKeptFloats = int64_t{64} << 20;
  thread_local at::Tensor buffer;
  at::Tensor wf;
  if (w.numel() <= kKeptFloats) {
    if (!buffer.defined() || buffer.numel() < w.numel()) buffer = at::empty({w.numel()}, w.options().dtype(at::kFloat));
    wf = buffer.narrow(0, 0, w.numel()).view(w.sizes());
    wf.copy_(w);
  } else {
    wf = w.to(at::kFloat);
  }
  return at::linear(x.to(at::kFloat), wf, b.defined() ? b.to(at::kFloat) : b).to(at::kBFloat16);
}

at::Tensor linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  if (linear_uses_upcast(x, w, b)) {
    RECORD_FUNCTION("ripplekv::linear_upcast", c10::ArrayRef<const c10::IValue>{});
    return linear_upcast(x, w, b);
  }
  const bool batch = linear_uses_batch_kernel(x, w);
  if (!batch && !linear_uses_row_kernel(x, w)) return at::linear(x, w, b);
  if (b.defined() && (b.dim() != 1 || b.size(0) != w.size(0))) return at::linear(x, w, b);  // its error
  // Named in a profile of the step (`ripplekv_bench --op-profile`); free when none is running.
  RECORD_FUNCTION("ripplekv::linear", c10::ArrayRef<const c10::IValue>{});
  at::Tensor y;
  if (x.scalar_type() == at::kFloat) {
    y = linear_f32_rows(x, w, b);
  } else {
#if defined(__x86_64__)
    y = cpu_has_avx512_bf16() ? linear_bf16_tokens<Bf16Dot>(x, w, b) : linear_bf16_tokens<Fp32Fma>(x, w, b);
#endif
  }
  auto sizes = x.sizes().vec();
  sizes.back() = w.size(0);
  return y.view(sizes);
}

}  // namespace ripplekv::ops
