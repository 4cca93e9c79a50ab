// Architecture hyper-parameters of a Llama-family decoder, read from a Hugging Face
// config.json (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM) or a llama2.c header.
// Torch-free.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ripplekv {

enum class RopeScalingType { None, Linear, Llama3 };

struct RopeScaling {
  RopeScalingType type = RopeScalingType::None;
  double factor = 1.0;
  double low_freq_factor = 1.0;                  // llama3
  double high_freq_factor = 4.0;                 // llama3
  int64_t original_max_position_embeddings = 0;  // llama3
};

struct ModelConfig {
  std::string architecture;   // e.g. "LlamaForCausalLM", "llama2.c"
  std::string model_type;     // "llama", "mistral", "qwen2", "llama2c"
  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t intermediate_size = 0;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  RopeScaling rope_scaling;
  bool tie_word_embeddings = false;
  bool attention_bias = false;  // bias on q/k/v projections (Qwen2)
  int64_t max_position_embeddings = 0;
  std::vector<int64_t> bos_token_ids;
  std::vector<int64_t> eos_token_ids;

  int64_t group_size() const { return num_heads / num_kv_heads; }
  // Throws std::invalid_argument naming `source` and the offending key.
  void validate(const std::string& source) const;
};

// Parses a config.json file. Unsupported features (a sliding window shorter than the
// context, unknown rope scaling, non-SiLU activations, unknown architectures) are errors.
ModelConfig parse_hf_config_file(const std::string& path);
ModelConfig parse_hf_config_text(const std::string& json_text, const std::string& source);

// Adds the stop ids of a generation_config.json (if the file exists) to eos_token_ids: chat
// models often list more there (Llama-3-Instruct: <|eot_id|> besides <|end_of_text|>).
void add_generation_config_eos(ModelConfig& config, const std::string& path);

// RoPE inverse frequencies [head_dim / 2] after the configured scaling (as HF computes them).
std::vector<double> rope_inverse_frequencies(const ModelConfig& config);

}  // namespace ripplekv
