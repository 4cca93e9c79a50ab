// generation_config.json: stop tokens added to a valid config.
#include <exception>

#include "fuzz_support.h"
#include "models/config/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const ripplekv::ModelConfig base = ripplekv::parse_hf_config_text(
      R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 256, "hidden_size": 64,
          "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96,
          "max_position_embeddings": 512, "rms_norm_eps": 1e-5, "eos_token_id": 2})",
      "fuzz-base");
  ripplekv::ModelConfig c = base;
  try {
    ripplekv::add_generation_config_eos(c, ripplekv::fuzz::scratch_file("generation_config.json", data, size));
  } catch (const std::exception&) {
  }
  return 0;
}
