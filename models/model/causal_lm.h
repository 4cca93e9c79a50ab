// The model interface everything above models/ uses: a decoder-only causal language model
// with a KV cache and named hook sites. LlamaModel (models/llama) is one implementation; the
// next architecture is one more class behind this interface, and the generation loop, the
// evaluation engine, the profiler and the compression policies need no change.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "models/cache/kv_cache.h"
#include "models/config/model_config.h"
#include "models/config/model_identity.h"
#include "models/hooks/hooks.h"

namespace ripplekv {

enum class LogitsFor { LastToken, AllTokens };

class CausalLM {
 public:
  virtual ~CausalLM() = default;

  virtual const ModelConfig& config() const = 0;
  int64_t num_layers() const { return config().num_layers; }
  virtual at::Device device() const = 0;
  virtual at::ScalarType dtype() const = 0;
  // The checkpoint's identity, the same at every dtype and device, to tie profiles to weights.
  virtual std::string fingerprint() const = 0;
  // Fingerprints, dtype and device, for policies that check files against the model.
  virtual ModelIdentity identity() const = 0;
  // Bytes of weights one decode step reads (every layer, the final norm and the head): the
  // decode-cost model of batched variant decoding (models/generation/decode_groups.h).
  virtual double decode_weight_bytes() const = 0;

  // Runs the prompt tokens [B, T] after whatever the cache holds; returns logits [B, 1, V]
  // (LastToken) or [B, T, V] in float32.
  virtual at::Tensor prefill(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks = nullptr,
                             LogitsFor which = LogitsFor::LastToken) const = 0;
  // One new token per sequence [B, 1]; returns logits [B, 1, V] in float32.
  virtual at::Tensor decode(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks = nullptr) const = 0;

  // Building blocks, for callers that re-run part of the network (the sensitivity profiler
  // recomputes layers l..L-1 from stored hidden states).
  virtual at::Tensor embed(const at::Tensor& tokens) const = 0;
  // Runs layers [first, last) on hidden [B, T, hidden] whose tokens start at `start_pos`.
  virtual at::Tensor run_layers(at::Tensor hidden, int64_t start_pos, int64_t first, int64_t last, KVCache& cache,
                                const HookRegistry* hooks, Phase phase) const = 0;
  virtual at::Tensor logits(const at::Tensor& hidden, const HookRegistry* hooks, Phase phase,
                            LogitsFor which) const = 0;
};

}  // namespace ripplekv
