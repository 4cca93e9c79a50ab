// Random-weight Llama models for the benchmark programs (header-only, benchmarks only).
#pragma once

#include <ATen/ATen.h>

#include <cmath>

#include "models/llama/llama_model.h"

namespace ripplekv::bench {

// A Llama config of the given shape (validated).
inline ModelConfig llama_shape(int64_t layers, int64_t hidden, int64_t heads, int64_t kv_heads, int64_t inter,
                               int64_t vocab, int64_t max_positions) {
  ModelConfig c;
  c.architecture = "LlamaForCausalLM";
  c.model_type = "llama";
  c.vocab_size = vocab;
  c.hidden_size = hidden;
  c.num_layers = layers;
  c.num_heads = heads;
  c.num_kv_heads = kv_heads;
  c.head_dim = hidden / heads;
  c.intermediate_size = inter;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000;
  c.max_position_embeddings = max_positions;
  c.validate("bench");
  return c;
}

// Gaussian weights with std 1/sqrt(fan_in) (activations stay O(1) through depth), unit norms.
inline ModelWeights random_weights(const ModelConfig& c, at::ScalarType dtype) {
  // Filled in place: no temporaries, so peak memory is the weights' own.
  auto w = [&](int64_t o, int64_t i) {
    return at::empty({o, i}, at::TensorOptions().dtype(dtype)).normal_(0.0, 1.0 / std::sqrt(static_cast<double>(i)));
  };
  auto norm = [&] { return at::ones({c.hidden_size}, at::TensorOptions().dtype(dtype)); };
  const int64_t qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  ModelWeights m;
  m.embed = at::empty({c.vocab_size, c.hidden_size}, at::TensorOptions().dtype(dtype)).normal_();
  for (int64_t l = 0; l < c.num_layers; ++l) {
    LayerWeights lw;
    lw.attn_norm = norm();
    lw.ffn_norm = norm();
    lw.wq = w(qd, c.hidden_size);
    lw.wk = w(kvd, c.hidden_size);
    lw.wv = w(kvd, c.hidden_size);
    lw.wo = w(c.hidden_size, qd);
    lw.w_gate = w(c.intermediate_size, c.hidden_size);
    lw.w_up = w(c.intermediate_size, c.hidden_size);
    lw.w_down = w(c.hidden_size, c.intermediate_size);
    m.layers.push_back(std::move(lw));
  }
  m.final_norm = norm();
  m.lm_head = w(c.vocab_size, c.hidden_size);
  return m;
}

}  // namespace ripplekv::bench
