// The SwiGLU activation of a decode step, silu(gate) * up, read straight from the fused
// gate/up projection in one loop instead of ATen's silu, narrow and mul: those three cost
// about 0.8 ms of a 16-row SmolLM2 step (`ripplekv_bench --op-profile`). The same bits as the
// ATen ops on an AVX-512 CPU: silu as ATen's vectorised kernel computes it (x / (1 + exp(-x))
// in float32 with SLEEF's exp, which LibTorch exports), rounded to the dtype, then the product
// (exact in float32 for two bfloat16 values) rounded once. Prompts keep the ATen ops.
#pragma once

#include <ATen/ATen.h>

namespace ripplekv::ops {

// Whether gu [..., 1, 2 I] (float32 or bfloat16, contiguous, CPU; I a multiple of 64, where
// ATen's loop has no scalar tail) takes the loop on this CPU.
bool swiglu_token_supported(const at::Tensor& gu);
// silu(gu[..., :I]) * gu[..., I:], shape [..., 1, I].
at::Tensor swiglu_token(const at::Tensor& gu);

}  // namespace ripplekv::ops
