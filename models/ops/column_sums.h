// H2O's accumulated attention for a bfloat16 prompt on a CPU with the bfloat16 dot-product
// instruction (AVX512_BF16): the causal softmax probabilities of each query over the keys it
// sees, summed over the last `window` queries, in one fused pass that never writes the score
// matrix to memory. ATen's way (ops.cpp) widens q and k to float32 for a float32 matrix
// product, which runs at about a third of the machine's matmul peak with head size 64, then
// passes over the scores four more times (scale, mask, softmax, sum).
//
// Arithmetic: each score is the exact products of the bfloat16 q and k summed in float32 (as
// the float32 product of the widened inputs, up to summation order), times 1/sqrt(D); exp is a
// float32 polynomial within 2 ulp; each probability is added to its key's column in query
// order. The bits therefore differ from the ATen path's by rounding (about 1e-6 relative),
// and do not depend on the number of threads. Kept indices can differ only where two keys'
// sums tie to within that rounding.
#pragma once

#include <ATen/ATen.h>

namespace ripplekv::ops {

// Whether the fused kernel serves these operands: CPU, q and k bfloat16 with an even head size,
// keys exactly the positions 0..Tk-1 with the queries the last Tq of them (a prompt's prefill),
// no key mask, and a CPU with AVX512_BF16.
bool column_sums_fused_supported(const at::Tensor& q, const at::Tensor& k);
// q [B, Hq, Tq, D], k [B, Hkv, Tk, D] (Hq a multiple of Hkv): [B, Hq, Tk] float32, the sums over
// the last `window` queries of softmax(q k^T / sqrt(D)) with query i seeing keys 0..Tk-Tq+i.
at::Tensor column_sums_fused(const at::Tensor& q, const at::Tensor& k, int64_t window);

}  // namespace ripplekv::ops
