// RippleKV's sensitivity measured on one prompt, after its prefill: for each layer l, the
// cached values of the prompt's context (all but its last W tokens; with W no larger than the
// selector's observation window, which it always keeps, exactly the tokens an eviction could
// drop) get norm-adaptive noise (perturbation.h), and the window is replayed
// through layers l..L-1 against that cache; the KL between the window's next-token
// distributions with the clean and the perturbed cache is layer l's sensitivity to damage in
// the tokens an eviction could drop.
//
// This is what eviction does to the cache: the other layers keep their cached context as the
// full prefill computed it, and only the tokens that come after (here the window, standing in
// for the answer) see the damaged layer. It costs one clean replay of W tokens through all L
// layers plus L replays from layer l on, about (L/2 + 1) x W tokens of forward pass, each
// attending to all the prompt's keys; one copy of the prompt's cache (its memory again); and
// L x kv_heads x context x head_dim Gaussian draws on the CPU (the noise is seeded there, so
// CPU and CUDA runs see the same). SmolLM2, 3,766 tokens, 1 thread: 10 s, half the prefill.
// D noise draws per layer repeat the L perturbed replays and draws D times (the clean replay
// is shared): an average over draws has less of the noise's own variance.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>

#include "core/ripple/kl_divergence.h"
#include "core/ripple/perturbation.h"
#include "models/cache/kv_cache.h"
#include "models/model/causal_lm.h"

namespace ripplekv {

struct PromptProbeOptions {
  NoiseSpec noise;          // `positions` is not read: the context is always the perturbed part
  uint64_t seed = 0;        // noise stream of layer l, draw d: noise_seed(seed, 0, l, d)
  int64_t draws = 1;        // D noise draws per layer, each replayed and measured
  KlDirection direction = KlDirection::Forward;
};

// KL per layer, draw and window position, [L, D x W] float64 (draw d at columns d W .. d W + W - 1). `cache` holds the whole prompt in every
// layer (nothing evicted); `window_input` [1, W, hidden] is the layer-0 input of its last W
// tokens (W < prompt length). The cache is only read.
at::Tensor probe_prompt_sensitivity(const CausalLM& model, const KVCache& cache, const at::Tensor& window_input,
                                    const PromptProbeOptions& options);

}  // namespace ripplekv
