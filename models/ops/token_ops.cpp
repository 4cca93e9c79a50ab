#include "models/ops/token_ops.h"

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace ripplekv::ops {

namespace {

// A value rounded to T as an ATen op of dtype T stores it (round to nearest even for bfloat16).
template <typename T>
inline float round_to(float v) {
  return static_cast<float>(static_cast<T>(v));
}

bool cpu_float_or_bf16(const at::Tensor& t) {
  return t.defined() && t.device().is_cpu() && (t.scalar_type() == at::kFloat || t.scalar_type() == at::kBFloat16);
}

template <typename T>
void rms_norm_rows(const T* x, const T* w, T* out, int64_t rows, int64_t h, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * h;
    double sum = 0;  // each square as float32 computes it, summed in double
    for (int64_t i = 0; i < h; ++i) {
      const float v = static_cast<float>(xr[i]);
      sum += static_cast<double>(v * v);
    }
    const float inv = 1.0f / std::sqrt(static_cast<float>(sum / static_cast<double>(h)) + eps);
    for (int64_t i = 0; i < h; ++i) {
      const float normed = round_to<T>(static_cast<float>(xr[i]) * inv);
      out[r * h + i] = static_cast<T>(static_cast<float>(w[i]) * normed);
    }
  }
}

// One head's D values at x, rotated into out.
template <typename T>
void rope_head(const T* x, const float* c, const float* s, T* out, int64_t d) {
  const int64_t half = d / 2;
  for (int64_t i = 0; i < d; ++i) {
    const float rotated = i < half ? -static_cast<float>(x[i + half]) : static_cast<float>(x[i - half]);
    const float a = round_to<T>(static_cast<float>(x[i]) * c[i]);
    const float b = round_to<T>(rotated * s[i]);
    out[i] = static_cast<T>(a + b);
  }
}

template <typename T>
std::pair<at::Tensor, at::Tensor> rope_qk(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                          int64_t hq, int64_t hkv, int64_t d) {
  const int64_t b = qkv.size(0), row = qkv.size(-1);
  const auto src = qkv.contiguous();
  // cos/sin in the activations' dtype, as apply_rope casts them.
  std::vector<float> c(static_cast<size_t>(d)), s(static_cast<size_t>(d));
  const auto cf = cos.contiguous(), sf = sin.contiguous();
  for (int64_t i = 0; i < d; ++i) {
    c[static_cast<size_t>(i)] = round_to<T>(cf.data_ptr<float>()[i]);
    s[static_cast<size_t>(i)] = round_to<T>(sf.data_ptr<float>()[i]);
  }
  auto q = at::empty({b, hq, 1, d}, qkv.options());
  auto k = at::empty({b, hkv, 1, d}, qkv.options());
  const T* in = src.data_ptr<T>();
  T* qo = q.data_ptr<T>();
  T* ko = k.data_ptr<T>();
  for (int64_t i = 0; i < b; ++i) {
    for (int64_t h = 0; h < hq; ++h) rope_head(in + i * row + h * d, c.data(), s.data(), qo + (i * hq + h) * d, d);
    for (int64_t h = 0; h < hkv; ++h) {
      rope_head(in + i * row + (hq + h) * d, c.data(), s.data(), ko + (i * hkv + h) * d, d);
    }
  }
  return {q, k};
}

}  // namespace

bool rms_norm_token_supported(const at::Tensor& x, const at::Tensor& weight) {
  if (!cpu_float_or_bf16(x) || x.dim() < 2 || x.size(-2) != 1 || !x.is_contiguous()) return false;
  return weight.defined() && weight.scalar_type() == x.scalar_type() && weight.device().is_cpu() &&
         weight.dim() == 1 && weight.size(0) == x.size(-1) && weight.is_contiguous();
}

at::Tensor rms_norm_token(const at::Tensor& x, const at::Tensor& weight, double eps) {
  auto out = at::empty_like(x);
  const int64_t h = x.size(-1), rows = x.numel() / h;
  if (x.scalar_type() == at::kFloat) {
    rms_norm_rows(x.data_ptr<float>(), weight.data_ptr<float>(), out.data_ptr<float>(), rows, h, static_cast<float>(eps));
  } else {
    rms_norm_rows(x.data_ptr<at::BFloat16>(), weight.data_ptr<at::BFloat16>(), out.data_ptr<at::BFloat16>(), rows, h,
                  static_cast<float>(eps));
  }
  return out;
}

bool rope_qk_token_supported(const at::Tensor& qkv, const at::Tensor& cos) {
  if (!cpu_float_or_bf16(qkv) || qkv.dim() != 3 || qkv.size(1) != 1) return false;
  return cos.defined() && cos.device().is_cpu() && cos.scalar_type() == at::kFloat && cos.dim() == 2 &&
         cos.size(0) == 1 && cos.size(1) % 2 == 0;
}

std::pair<at::Tensor, at::Tensor> rope_qk_token(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                                int64_t hq, int64_t hkv, int64_t d) {
  if (cos.size(1) != d || sin.sizes() != cos.sizes() || qkv.size(-1) != (hq + 2 * hkv) * d) {
    throw std::invalid_argument("rope_qk_token: qkv, cos and sin do not match the head layout");
  }
  return qkv.scalar_type() == at::kFloat ? rope_qk<float>(qkv, cos, sin, hq, hkv, d)
                                         : rope_qk<at::BFloat16>(qkv, cos, sin, hq, hkv, d);
}

}  // namespace ripplekv::ops
