// The greedy choice of a decode step: the index of each row's largest logit, in one AVX-512
// pass per row instead of ATen's argmax, which took 0.5 ms of a 16-row SmolLM2 step over its
// 49,152-token vocabulary (`ripplekv_bench --op-profile`). The same answer as ATen's argmax:
// the first index of the maximum, or of the first NaN where a row has one.
#pragma once

#include <ATen/ATen.h>

namespace ripplekv::ops {

// Whether logits (float32 or bfloat16, contiguous, CPU, last dimension > 0) take the pass.
bool greedy_argmax_supported(const at::Tensor& logits);
// logits.argmax(-1): int64, the shape of logits without its last dimension (ATen's argmax where
// the pass is not supported).
at::Tensor greedy_argmax(const at::Tensor& logits);

}  // namespace ripplekv::ops
