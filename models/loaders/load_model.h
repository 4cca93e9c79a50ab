// Loading a model from disk: a Hugging Face checkpoint directory (config.json +
// model.safetensors or a sharded index) or a llama2.c checkpoint file (.bin).
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <string>

#include "models/llama/llama_model.h"
#include "models/model/causal_lm.h"

namespace ripplekv {

struct LoadOptions {
  at::ScalarType dtype = at::kFloat;
  at::Device device = at::kCPU;
};

// Dispatches on the path: a directory is a HF checkpoint, a file a llama2.c checkpoint. Callers
// above models/ see the model only through CausalLM.
std::unique_ptr<CausalLM> load_model(const std::string& path, const LoadOptions& options);

// A Hugging Face folder's config as load_hf_model reads it: config.json, plus the end-of-sequence
// ids of generation_config.json when there is one. Loads no weights.
ModelConfig read_hf_model_config(const std::string& model_dir);

// Strict: every expected tensor present with its exact shape, nothing unexpected (apart from
// RoPE caches some old checkpoints store, and lm_head.weight in tied checkpoints).
std::unique_ptr<LlamaModel> load_hf_model(const std::string& model_dir, const LoadOptions& options);

// llama2.c format: 7 int32 header fields (dim, hidden_dim, n_layers, n_heads, n_kv_heads,
// vocab_size — negative when the classifier is not shared — and seq_len), then float32
// weights. Its interleaved RoPE pairs are permuted into the HF layout at load.
std::unique_ptr<LlamaModel> load_llama2c_model(const std::string& path, const LoadOptions& options);

// Parses "float32" / "bfloat16" / "float16" and "cpu" / "cuda[:N]" with errors that list the choices.
at::ScalarType parse_dtype(const std::string& name);
at::Device parse_device(const std::string& name);

}  // namespace ripplekv
