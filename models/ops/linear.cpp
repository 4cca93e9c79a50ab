#include "models/ops/linear.h"

#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>

#include "models/ops/cpu_features.h"

namespace ripplekv::ops {

namespace {

#if defined(__x86_64__)

// dot(w, x) for one weight row w (bfloat16, k_len) and x float32: float32 accumulators, 16 lanes.
RIPPLEKV_AVX512 float dot_bf16(const uint16_t* w, const float* x, int64_t k_len) {
  const int64_t k_main = k_len / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (k_len - k_main)) - 1u);
  __m512 a = _mm512_setzero_ps();
  for (int64_t k = 0; k < k_main; k += 16) a = _mm512_fmadd_ps(load_bf16x16(w + k), _mm512_loadu_ps(x + k), a);
  if (tail) a = _mm512_fmadd_ps(widen_bf16(_mm256_maskz_loadu_epi16(tail, w + k_main)), _mm512_maskz_loadu_ps(tail, x + k_main), a);
  return _mm512_reduce_add_ps(a);
}
// The same dot products for 4 weight rows from w and MC inputs x_0 .. x_{MC-1} (rows of x,
// stride k_len): y[m * 4 + j] = dot(w[j, :], x_m), each with exactly dot_bf16's fmadd sequence,
// so an output's bits do not depend on how many inputs share the block. Each widened weight
// vector serves all MC inputs from registers.
template <int MC>
RIPPLEKV_AVX512 void gemm_bf16_4rows(const uint16_t* w, const float* x, float* y, int64_t k_len) {
  const int64_t k_main = k_len / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (k_len - k_main)) - 1u);
  const uint16_t* wr[4] = {w, w + k_len, w + 2 * k_len, w + 3 * k_len};
  __m512 acc[MC][4];
  for (int m = 0; m < MC; ++m) {
    for (int j = 0; j < 4; ++j) acc[m][j] = _mm512_setzero_ps();
  }
  for (int64_t k = 0; k < k_main; k += 16) {
    __m512 wv[4];
    for (int j = 0; j < 4; ++j) wv[j] = load_bf16x16(wr[j] + k);
    for (int m = 0; m < MC; ++m) {
      const __m512 xv = _mm512_loadu_ps(x + m * k_len + k);
      for (int j = 0; j < 4; ++j) acc[m][j] = _mm512_fmadd_ps(wv[j], xv, acc[m][j]);
    }
  }
  if (tail) {
    __m512 wv[4];
    for (int j = 0; j < 4; ++j) wv[j] = widen_bf16(_mm256_maskz_loadu_epi16(tail, wr[j] + k_main));
    for (int m = 0; m < MC; ++m) {
      const __m512 xv = _mm512_maskz_loadu_ps(tail, x + m * k_len + k_main);
      for (int j = 0; j < 4; ++j) acc[m][j] = _mm512_fmadd_ps(wv[j], xv, acc[m][j]);
    }
  }
  for (int m = 0; m < MC; ++m) {
    for (int j = 0; j < 4; ++j) y[m * 4 + j] = _mm512_reduce_add_ps(acc[m][j]);
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

// One token of each of M sequences (x [M, K]; M = 1 when decoding one sequence), bfloat16 in
// and out: x is widened once (exactly), each output accumulated in float32 by the same fmadd
// sequence whatever M is, the bias added there, and rounded to bfloat16 once (round to nearest
// even, as a cast does). So a batch gives the bits of decoding its sequences one at a time.
// Each block of 4 weight rows is read from memory once and serves every sequence from cache.
at::Tensor linear_bf16_tokens(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
#if defined(__x86_64__)
  const int64_t n = w.size(0), k = w.size(1), m_len = x.numel() / k;
  const auto xf = x.reshape({m_len, k}).to(at::kFloat).contiguous();
  auto out = at::empty({m_len, n}, x.options());
  at::Tensor bias = b.defined() ? b.to(at::kFloat).contiguous() : at::Tensor();
  const auto* wp = reinterpret_cast<const uint16_t*>(w.data_ptr<at::BFloat16>());
  const float* xp = xf.data_ptr<float>();
  const float* bp = bias.defined() ? bias.data_ptr<float>() : nullptr;
  auto* yp = out.data_ptr<at::BFloat16>();
  auto store = [&](const float* acc, int64_t m0, int64_t mc, int64_t r, int64_t rows) {
    for (int64_t m = 0; m < mc; ++m) {
      for (int64_t i = 0; i < rows; ++i) {
        const float v = acc[m * 4 + i];
        yp[(m0 + m) * n + r + i] = at::BFloat16(bp ? v + bp[r + i] : v);
      }
    }
  };
  at::parallel_for(0, n, row_grain(n), [&](int64_t s, int64_t e) {
    float acc[16];
    for (int64_t r = s; r < e; r += 4) {
      const int64_t rows = std::min<int64_t>(4, e - r);
      const uint16_t* wb = wp + r * k;
      if (rows < 4) {  // a chunk's last partial block: one dot product at a time
        for (int64_t m = 0; m < m_len; ++m) {
          for (int64_t i = 0; i < rows; ++i) acc[i] = dot_bf16(wb + i * k, xp + m * k, k);
          store(acc, m, 1, r, rows);
        }
        continue;
      }
      int64_t m = 0;
      for (; m + 4 <= m_len; m += 4) {
        gemm_bf16_4rows<4>(wb, xp + m * k, acc, k);
        store(acc, m, 4, r, 4);
      }
      switch (m_len - m) {
        case 3: gemm_bf16_4rows<3>(wb, xp + m * k, acc, k); break;
        case 2: gemm_bf16_4rows<2>(wb, xp + m * k, acc, k); break;
        case 1: gemm_bf16_4rows<1>(wb, xp + m * k, acc, k); break;
        default: break;
      }
      if (m < m_len) store(acc, m, m_len - m, r, 4);
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

bool linear_uses_batch_kernel(const at::Tensor& x, const at::Tensor& w) {
  if (!x.device().is_cpu() || !w.device().is_cpu() || x.dim() < 2 || w.dim() != 2) return false;
  if (x.size(-2) != 1 || x.numel() == x.size(-1) || x.size(-1) != w.size(1) || !w.is_contiguous()) return false;
  if (x.scalar_type() != at::kBFloat16 || w.scalar_type() != at::kBFloat16 || w.size(0) < 64) return false;
  return !at::in_parallel_region() && cpu_has_avx512();
}

bool linear_uses_row_kernel(const at::Tensor& x, const at::Tensor& w) {
  if (!x.device().is_cpu() || !w.device().is_cpu() || x.dim() < 1 || w.dim() != 2) return false;
  if (x.numel() != x.size(-1) || x.size(-1) != w.size(1) || !w.is_contiguous()) return false;
  if (x.scalar_type() != w.scalar_type() || w.size(0) < 64 || at::in_parallel_region()) return false;
  if (x.scalar_type() == at::kFloat) return at::get_num_threads() > 1;
  return x.scalar_type() == at::kBFloat16 && cpu_has_avx512();
}

at::Tensor linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  const bool batch = linear_uses_batch_kernel(x, w);
  if (!batch && !linear_uses_row_kernel(x, w)) return at::linear(x, w, b);
  at::Tensor y;
  if (x.scalar_type() == at::kFloat) {
    y = linear_f32_rows(x, w);
    if (b.defined()) y.add_(b);
  } else {
    y = linear_bf16_tokens(x, w, b);
  }
  auto sizes = x.sizes().vec();
  sizes.back() = w.size(0);
  return y.view(sizes);
}

}  // namespace ripplekv::ops
