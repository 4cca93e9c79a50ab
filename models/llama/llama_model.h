// A Llama-family decoder (Llama 1/2/3, Mistral, Qwen2, llama2.c) over LibTorch tensors.
// Modules hold weights; the math is in models/ops. Prefill and decode are separate paths;
// every layer exposes named hook sites (models/hooks); the KV cache is passed in and only
// mutated through its own methods.
#pragma once

#include <ATen/ATen.h>

#include <vector>

#include "models/model/causal_lm.h"

namespace ripplekv {

struct LayerWeights {
  at::Tensor attn_norm;             // [hidden]
  at::Tensor wq, wk, wv, wo;        // [out, in]
  at::Tensor bq, bk, bv;            // optional biases (Qwen2)
  at::Tensor ffn_norm;              // [hidden]
  at::Tensor w_gate, w_up, w_down;  // [out, in]
  // q/k/v and gate/up stacked so that each is one GEMM: given by the loader, or else stacked by
  // LlamaModel from wq .. w_up; wq .. w_up then become views into them (no second copy).
  at::Tensor w_qkv, b_qkv, w_gate_up;
};

struct ModelWeights {
  at::Tensor embed;       // [vocab, hidden]
  std::vector<LayerWeights> layers;
  at::Tensor final_norm;  // [hidden]
  at::Tensor lm_head;     // [vocab, hidden] (the embedding itself when tied)
};

class LlamaModel final : public CausalLM {
 public:
  // Weights must already be on their device and in their compute dtype. `checkpoint_fingerprint`
  // identifies the stored checkpoint (models/loaders/checkpoint_fingerprint.h); empty for
  // weights that were never stored (then fingerprint() is the legacy one).
  LlamaModel(ModelConfig config, ModelWeights weights, std::string checkpoint_fingerprint = "");

  const ModelConfig& config() const override { return config_; }
  at::Device device() const override { return weights_.embed.device(); }
  at::ScalarType dtype() const override { return weights_.embed.scalar_type(); }
  const ModelWeights& weights() const { return weights_; }
  std::string fingerprint() const override;
  // The fingerprint older ripplekv versions wrote into profiles: sums of a few tensors in the
  // run's dtype (so it differs between dtypes of one checkpoint). Kept to accept old profiles.
  std::string legacy_fingerprint() const;
  ModelIdentity identity() const override;
  double decode_weight_bytes() const override;

  at::Tensor prefill(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks = nullptr,
                     LogitsFor which = LogitsFor::LastToken) const override;
  at::Tensor decode(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks = nullptr) const override;

  at::Tensor embed(const at::Tensor& tokens) const override;
  at::Tensor run_layers(at::Tensor hidden, int64_t start_pos, int64_t first, int64_t last, KVCache& cache,
                        const HookRegistry* hooks, Phase phase) const override;
  at::Tensor logits(const at::Tensor& hidden, const HookRegistry* hooks, Phase phase, LogitsFor which) const override;

 private:
  at::Tensor layer_forward(int64_t l, const at::Tensor& hidden, int64_t start_pos, const at::Tensor& positions,
                           const at::Tensor& cos, const at::Tensor& sin, KVCache& cache, const HookRegistry* hooks,
                           Phase phase) const;
  at::Tensor forward(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks, Phase phase,
                     LogitsFor which) const;

  ModelConfig config_;
  ModelWeights weights_;
  at::Tensor inv_freq_;  // [head_dim / 2] float32 on the model's device
  std::string checkpoint_fingerprint_;
};

}  // namespace ripplekv
