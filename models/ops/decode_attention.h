// Attention of one new query token per sequence over its cached keys (the decode step), on a
// CPU, for float32 and bfloat16 caches. LibTorch's fused kernel reads a bfloat16 cache at
// about a fifth of the memory bandwidth on the project's CPU, and a matmul-based version
// copies the transposed keys; this reads each cached key and value once:
//   pass 1, parallel over (sequence x head, key block): scores of every query head of the
//     group against each key, in float32 (the cache widened exactly), times 1/sqrt(D);
//   softmax over keys in float32;
//   pass 2, parallel over sequence x head (heads wider than 128 in slices): the
//     probability-weighted sum of whole value rows, accumulated in float32, cast to the cache
//     dtype.
// The rounding is that of a float32 attention of the cache values (as SDPA's CPU kernel, up
// to summation order).
#pragma once

#include <ATen/ATen.h>

namespace ripplekv::ops {

// q [B, H, R, D] (R query heads share cached head h), k, v [B, H, T, D] with contiguous rows
// (a narrowed cache buffer is fine), key_mask [B, 1, T] bool (false: padding) or undefined.
bool decode_attention_supported(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v);
// Returns [B, H, R, D] in q's dtype. Call only where decode_attention_supported().
at::Tensor decode_attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                            const at::Tensor& key_mask);

}  // namespace ripplekv::ops
