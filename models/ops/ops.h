// Stateless transformer math shared by the model, the compression policies and the tests.
// Tensors are [batch, heads, tokens, head_dim] unless stated. Nothing here owns state.
#pragma once

#include <ATen/ATen.h>

#include <optional>

namespace ripplekv::ops {

// RMSNorm: x * rsqrt(mean(x^2) + eps) * weight, computed in float32 and cast back to x's
// dtype (as HF LlamaRMSNorm does, so bfloat16 runs round at the same places).
at::Tensor rms_norm(const at::Tensor& x, const at::Tensor& weight, double eps);

// RoPE in the "rotate half" layout HF uses: pairs are (i, i + D/2). llama2.c checkpoints,
// which pair (2i, 2i+1), are permuted into this layout at load time.
// inv_freq: [D/2] float32; positions: [T] or [B, T] int64. Returns cos, sin of shape [T, D] or
// [B, 1, T, D] in float32.
std::pair<at::Tensor, at::Tensor> rope_cos_sin(const at::Tensor& inv_freq, const at::Tensor& positions);
// x: [B, H, T, D]; cos/sin from rope_cos_sin. Computed in float32, returned in x's dtype.
at::Tensor apply_rope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);

// SwiGLU MLP: down(silu(gate(x)) * up(x)); weights are [out, in] like nn.Linear.
at::Tensor swiglu_mlp(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up,
                      const at::Tensor& w_down);

// The same with gate and up stacked as one [2 * inter, in] weight (one GEMM). A prompt of
// 2 * block_rows rows or more runs in blocks of block_rows rows (the last takes the rest, so
// every block has at least block_rows): the [rows, 2 * inter] gate/up product and its
// activation exist for one block at a time. On Qwen2.5-1.5B at 32k tokens that is 2.2 GiB of
// bfloat16 transients in every layer without blocks, 0.14 GiB with 2,048-row blocks. The
// MLP is row-wise, and ATen's product of a block of 256 rows or more gives each row the bits
// of the whole product (measured on the TinyLlama, SmolLM2 and Qwen shapes: README, "What is
// still missing"), so blocks change memory, not results. block_rows <= 0: one block.
inline constexpr int64_t kMlpBlockRows = 2048;
at::Tensor swiglu_mlp_fused(const at::Tensor& x, const at::Tensor& w_gate_up, const at::Tensor& w_down,
                            int64_t block_rows = kMlpBlockRows);

// [B, Hkv, T, D] -> [B, Hkv * n_rep, T, D]; query head h reads KV head h / n_rep.
at::Tensor repeat_kv(const at::Tensor& x, int64_t n_rep);

// Causal attention of q [B, Hq, Tq, D] over k, v [B, Hkv, Tk, D] (GQA: Hq a multiple of Hkv)
// with no T x T matrix materialised for long prompts. q_pos [Tq] and k_pos [B, Hkv, Tk] are
// absolute positions: query i sees key j iff k_pos[j] <= q_pos[i]. `keys_are_prefix` says the
// keys are exactly positions 0..Tk-1 in order with the queries being the last Tq of them
// (plain prefill / decode), which allows the fast causal kernel.
struct AttentionInputs {
  at::Tensor q, k, v;
  at::Tensor q_pos;  // [Tq] int64
  at::Tensor k_pos;  // [B, Hkv, Tk] int64
  bool keys_are_prefix = true;
  // [B, 1, Tk] bool, false at the padding slots of a batch whose rows hold caches of different
  // lengths (KVCache::key_mask); undefined when every slot holds a token. Padding slots also
  // carry position INT64_MAX, so the position-masked paths exclude them by themselves.
  at::Tensor key_mask;
};
at::Tensor causal_attention(const AttentionInputs& in);

// Softmax attention probabilities of the last `window` queries over all keys, with the
// same causal rule: [B, Hq, W, Tk] float32. This is the observation window SnapKV, H2O and
// CAKE score with; only computed when somebody asks for it.
at::Tensor window_attention_probs(const AttentionInputs& in, int64_t window);

// The same probabilities summed over the last `window` queries, [B, Hq, Tk] float32, computed
// `chunk` queries at a time (window may be all queries: H2O's accumulated attention). A
// bfloat16 prompt on a CPU with AVX512_BF16 takes the fused kernel of column_sums.h instead.
at::Tensor attention_column_sums(const AttentionInputs& in, int64_t window, int64_t chunk = 256);

}  // namespace ripplekv::ops
