// The small elementwise ops of a decode step (one token per sequence) as single CPU loops with
// ATen's roundings, instead of 8-10 ATen calls each: at a few microseconds per call, the ATen
// version of RMSNorm and RoPE cost about a tenth of a SmolLM2 decode step
// (`ripplekv_bench --op-profile`). Prompts (many tokens) keep the ATen ops.
//  - RMSNorm: x * rsqrt(mean(x^2) + eps) in float32, rounded to x's dtype, times the weight
//    (rounded again), as HF; only the mean's summation differs from ATen (in double here).
//  - RoPE on q and k together, read straight from the fused qkv projection: x * cos +
//    rotate_half(x) * sin with cos/sin rounded to the dtype and each product and the sum
//    rounded, as the ATen ops round: the same bits.
#pragma once

#include <ATen/ATen.h>

#include <utility>

namespace ripplekv::ops {

// Whether x [..., 1, H] (one token per sequence, float32 or bfloat16, CPU) takes the loop.
bool rms_norm_token_supported(const at::Tensor& x, const at::Tensor& weight);
at::Tensor rms_norm_token(const at::Tensor& x, const at::Tensor& weight, double eps);

// qkv [B, 1, (Hq + 2 Hkv) D] from the fused projection, cos/sin [1, D] float32 (rope_cos_sin
// of one position): returns q [B, Hq, 1, D] and k [B, Hkv, 1, D] rotated, contiguous.
bool rope_qk_token_supported(const at::Tensor& qkv, const at::Tensor& cos);
std::pair<at::Tensor, at::Tensor> rope_qk_token(const at::Tensor& qkv, const at::Tensor& cos, const at::Tensor& sin,
                                                int64_t hq, int64_t hkv, int64_t d);

}  // namespace ripplekv::ops
