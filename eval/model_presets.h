// Maximum LongBench input lengths (pred.py's model2maxlen) for the models KV-cache papers
// evaluate, so that a run on those models needs no --max-input-tokens:
//
//   llama2-7b-chat-4k         3500   THUDM/LongBench config/model2maxlen.json
//   llama2-chat-3950          3950   KVCache-Factory / PyramidKV model2maxlen["llama2"]
//   llama3-8b-instruct        7950   KVCache-Factory / PyramidKV model2maxlen["llama3"]
//   mistral-7b-instruct-v0.2  31500  FFY0/AdaKV config/model2maxlen.json
//
// Torch-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

struct ModelPreset {
  std::string_view name;
  long long max_input_tokens;
  std::string_view source;           // where the number comes from
  std::string_view model_dir_match;  // lower-case substring of a model directory name it fits
};

const std::vector<ModelPreset>& model_presets();

// Throws std::invalid_argument listing the presets.
const ModelPreset& find_model_preset(std::string_view name);

// The preset whose model_dir_match occurs in the lower-cased final component of
// `model_path` (e.g. ".../Llama-2-7b-chat-hf" -> llama2-7b-chat-4k); nullopt when none does.
std::optional<ModelPreset> preset_for_model_path(const std::string& model_path);

}  // namespace ripplekv::eval
