// Random-weight Llama models for the benchmark programs (header-only, benchmarks only).
#pragma once

#include <ATen/ATen.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

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

// The real models' shapes the benchmarks time (random weights: speed does not depend on them).
struct Shape {
  const char* name;
  const char* model;  // the Hugging Face model of this shape
  int64_t layers, hidden, heads, kv_heads, inter, vocab, max_positions;
  double rope_theta;
  bool tied_embeddings, qkv_bias;
};
inline const std::vector<Shape>& shapes() {
  static const std::vector<Shape> all{
      {"tinyllama", "TinyLlama-1.1B", 22, 2048, 32, 4, 5632, 32000, 16384, 10000, false, false},
      {"smollm2", "SmolLM2-135M-Instruct", 30, 576, 9, 3, 1536, 49152, 8192 * 2, 100000, true, false},
      {"qwen2.5-1.5b", "Qwen2.5-Coder-1.5B-Instruct", 28, 1536, 12, 2, 8960, 151936, 32768, 1000000, true, true},
  };
  return all;
}
inline const Shape& find_shape(const std::string& name) {
  for (const auto& s : shapes()) {
    if (name == s.name) return s;
  }
  std::string known;
  for (const auto& s : shapes()) known += std::string(known.empty() ? "" : ", ") + s.name;
  throw std::invalid_argument("unknown --shape '" + name + "' (known: " + known + ")");
}
inline ModelConfig shape_config(const Shape& s, int64_t layers = 0) {
  auto c = llama_shape(layers > 0 ? layers : s.layers, s.hidden, s.heads, s.kv_heads, s.inter, s.vocab,
                       s.max_positions);
  c.rope_theta = s.rope_theta;
  c.tie_word_embeddings = s.tied_embeddings;
  c.attention_bias = s.qkv_bias;
  return c;
}

// Gaussian weights with std 1/sqrt(fan_in) (activations stay O(1) through depth), unit norms.
// Tied configs share the embedding as lm_head; attention_bias adds q/k/v biases.
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
    if (c.attention_bias) {
      auto bias = [&](int64_t n) { return at::empty({n}, at::TensorOptions().dtype(dtype)).normal_(0.0, 0.1); };
      lw.bq = bias(qd);
      lw.bk = bias(kvd);
      lw.bv = bias(kvd);
    }
    m.layers.push_back(std::move(lw));
  }
  m.final_norm = norm();
  if (c.tie_word_embeddings) {
    m.embed.mul_(1.0 / std::sqrt(static_cast<double>(c.hidden_size)));
    m.lm_head = m.embed;
  } else {
    m.lm_head = w(c.vocab_size, c.hidden_size);
  }
  return m;
}

}  // namespace ripplekv::bench
