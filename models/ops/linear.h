// y = x W^T (+ b), as at::linear, with a faster path for what decoding one sequence does on a
// CPU: a single input row. There the BLAS runs a float32 matrix-vector product on one thread
// and bfloat16 at about half the memory bandwidth, and the product is bound by reading W, so:
//  - float32: the output rows are split across the intra-op threads; on an AVX-512 CPU each
//    row is one forward stream, its exact products summed in float64 and rounded once (the
//    BLAS kernel read at about half the bandwidth on this project's VM), elsewhere each
//    thread runs the BLAS matrix-vector product of its own rows;
//  - bfloat16: an AVX-512 kernel reads W once and accumulates in float32, then rounds to
//    bfloat16: with the bfloat16 dot-product instruction where the CPU has it (AVX512_BF16,
//    as oneDNN does), else by widening to float32; a CPU without AVX-512 takes at::linear.
// One token of each of several sequences (x [B, 1, K], a batched decode step) in bfloat16 takes
// the same kernel in blocks of 4 weight rows, each output with the instruction sequence it has
// alone, so each sequence's output has exactly its own bits (batched and one-at-a-time greedy
// decoding agree); W is still read once per step.
// Many rows in bfloat16 (a prompt, or a decode step of 16 variants or more) on an x86-64 CPU
// without AVX-512: ATen's bfloat16 GEMM runs there at about a seventh of its float32 GEMM (9-10
// against 65-80 GFLOP/s on one thread of an AVX2 EPYC), so the operands are widened to float32
// (exactly), multiplied by ATen's float32 GEMM and the result rounded to bfloat16 once (for a
// Qwen-sized MLP matrix on 2 threads the widening breaks even at 16 rows and is 1.65x faster at
// 41, 7x for a prompt; ATen's GEMM is faster below 16); ATen's bfloat16 GEMM also sums in float32, so
// only the summation order, and with it the last bit of some outputs, can differ. CPUs with
// AVX-512 keep ATen's bfloat16 GEMM (every committed result was made on one).
// Everything else (prompts elsewhere, float32 batches, other dtypes, other devices) is at::linear.
#pragma once

#include <ATen/ATen.h>

namespace ripplekv::ops {

at::Tensor linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b = {});

// Whether linear() takes its single-row path for these operands (for tests and benchmarks).
bool linear_uses_row_kernel(const at::Tensor& x, const at::Tensor& w);
// Whether linear() takes its batched-decode path (bfloat16, x [B, 1, K] with B > 1).
bool linear_uses_batch_kernel(const at::Tensor& x, const at::Tensor& w);
// Whether linear() widens these bfloat16 operands to float32 (at least kUpcastMinRows rows, a
// bfloat16 bias if any, x86-64 without AVX-512 or with RIPPLEKV_CPU_ISA=avx2; not with `none`).
bool linear_uses_upcast(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b = {});
inline constexpr int64_t kUpcastMinRows = 16;
// That path on any CPU (CPU tensors only): at::linear of the operands widened to float32,
// rounded to bfloat16. Each calling thread keeps the widened weights in a buffer of up to 256 MiB
// for the life of the process.
at::Tensor linear_upcast(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b = {});

}  // namespace ripplekv::ops
