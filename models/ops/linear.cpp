#include "models/ops/linear.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>

#include "models/ops/cpu_features.h"

namespace ripplekv::ops {

namespace {

#if defined(__x86_64__)

// y[r] = dot(w[r, :], x) for r in [r0, r1); w bfloat16 [N, K] row-major, x float32 [K].
// Four rows at a time share each load of x; float32 accumulators, 16 lanes each.
RIPPLEKV_AVX512 void gemv_bf16_rows(const uint16_t* w, const float* x,
                                                                           float* y, int64_t r0, int64_t r1,
                                                                           int64_t k_len) {
  const int64_t k_main = k_len / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (k_len - k_main)) - 1u);
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4) {
    const uint16_t* w0 = w + r * k_len;
    const uint16_t* w1 = w0 + k_len;
    const uint16_t* w2 = w1 + k_len;
    const uint16_t* w3 = w2 + k_len;
    __m512 a0 = _mm512_setzero_ps(), a1 = _mm512_setzero_ps(), a2 = _mm512_setzero_ps(), a3 = _mm512_setzero_ps();
    for (int64_t k = 0; k < k_main; k += 16) {
      const __m512 xv = _mm512_loadu_ps(x + k);
      a0 = _mm512_fmadd_ps(load_bf16x16(w0 + k), xv, a0);
      a1 = _mm512_fmadd_ps(load_bf16x16(w1 + k), xv, a1);
      a2 = _mm512_fmadd_ps(load_bf16x16(w2 + k), xv, a2);
      a3 = _mm512_fmadd_ps(load_bf16x16(w3 + k), xv, a3);
    }
    if (tail) {
      const __m512 xv = _mm512_maskz_loadu_ps(tail, x + k_main);
      a0 = _mm512_fmadd_ps(widen_bf16(_mm256_maskz_loadu_epi16(tail, w0 + k_main)), xv, a0);
      a1 = _mm512_fmadd_ps(widen_bf16(_mm256_maskz_loadu_epi16(tail, w1 + k_main)), xv, a1);
      a2 = _mm512_fmadd_ps(widen_bf16(_mm256_maskz_loadu_epi16(tail, w2 + k_main)), xv, a2);
      a3 = _mm512_fmadd_ps(widen_bf16(_mm256_maskz_loadu_epi16(tail, w3 + k_main)), xv, a3);
    }
    y[r] = _mm512_reduce_add_ps(a0);
    y[r + 1] = _mm512_reduce_add_ps(a1);
    y[r + 2] = _mm512_reduce_add_ps(a2);
    y[r + 3] = _mm512_reduce_add_ps(a3);
  }
  for (; r < r1; ++r) {
    const uint16_t* wr = w + r * k_len;
    __m512 a = _mm512_setzero_ps();
    for (int64_t k = 0; k < k_main; k += 16) {
      a = _mm512_fmadd_ps(load_bf16x16(wr + k), _mm512_loadu_ps(x + k), a);
    }
    if (tail) {
      a = _mm512_fmadd_ps(widen_bf16(_mm256_maskz_loadu_epi16(tail, wr + k_main)), _mm512_maskz_loadu_ps(tail, x + k_main), a);
    }
    y[r] = _mm512_reduce_add_ps(a);
  }
}
#endif

// Rows per task: an equal share per thread, in multiples of 4 (the kernel's row block).
int64_t row_grain(int64_t rows) {
  const int64_t threads = std::max(1, at::get_num_threads());
  return std::max<int64_t>(4, (rows + threads * 4 - 1) / (threads * 4) * 4);
}

at::Tensor linear_f32_rows(const at::Tensor& x, const at::Tensor& w) {
  const auto xv = x.reshape({x.size(-1)}).contiguous();
  const int64_t n = w.size(0);
  auto out = at::empty({n}, x.options());
  at::parallel_for(0, n, row_grain(n), [&](int64_t s, int64_t e) {
    auto o = out.narrow(0, s, e - s);
    at::mv_out(o, w.narrow(0, s, e - s), xv);
  });
  return out;
}

// bfloat16 in and out: x is widened once (exactly), each output accumulated in float32, the
// bias added there, and rounded to bfloat16 once (round to nearest even, as a cast does).
at::Tensor linear_bf16_rows(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
#if defined(__x86_64__)
  const auto xf = x.reshape({x.size(-1)}).to(at::kFloat).contiguous();
  const int64_t n = w.size(0), k = w.size(1);
  auto out = at::empty({n}, x.options());
  at::Tensor bias = b.defined() ? b.to(at::kFloat).contiguous() : at::Tensor();
  const auto* wp = reinterpret_cast<const uint16_t*>(w.data_ptr<at::BFloat16>());
  const float* xp = xf.data_ptr<float>();
  const float* bp = bias.defined() ? bias.data_ptr<float>() : nullptr;
  auto* yp = out.data_ptr<at::BFloat16>();
  at::parallel_for(0, n, row_grain(n), [&](int64_t s, int64_t e) {
    float acc[256];
    for (int64_t r = s; r < e; r += 256) {
      const int64_t m = std::min<int64_t>(256, e - r);
      gemv_bf16_rows(wp + r * k, xp, acc, 0, m, k);
      for (int64_t i = 0; i < m; ++i) yp[r + i] = at::BFloat16(bp ? acc[i] + bp[r + i] : acc[i]);
    }
  });
  return out;
#else
  (void)x;
  (void)w;
  (void)b;
  return {};
#endif
}

}  // namespace

bool linear_uses_row_kernel(const at::Tensor& x, const at::Tensor& w) {
  if (!x.device().is_cpu() || !w.device().is_cpu() || x.dim() < 1 || w.dim() != 2) return false;
  if (x.numel() != x.size(-1) || x.size(-1) != w.size(1) || !w.is_contiguous()) return false;
  if (x.scalar_type() != w.scalar_type() || w.size(0) < 64 || at::in_parallel_region()) return false;
  if (x.scalar_type() == at::kFloat) return at::get_num_threads() > 1;
  return x.scalar_type() == at::kBFloat16 && cpu_has_avx512();
}

at::Tensor linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  if (!linear_uses_row_kernel(x, w)) return at::linear(x, w, b);
  at::Tensor y;
  if (x.scalar_type() == at::kFloat) {
    y = linear_f32_rows(x, w);
    if (b.defined()) y.add_(b);
  } else {
    y = linear_bf16_rows(x, w, b);
  }
  auto sizes = x.sizes().vec();
  sizes.back() = w.size(0);
  return y.view(sizes);
}

}  // namespace ripplekv::ops
