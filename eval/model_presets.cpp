#include "eval/model_presets.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::eval {

const std::vector<ModelPreset>& model_presets() {
  // The first preset matching a directory name wins: the official 3500 for Llama-2-chat;
  // 3950 is only chosen by name.
  static const std::vector<ModelPreset> presets = {
      {"llama2-7b-chat-4k", 3500, "THUDM/LongBench config/model2maxlen.json", "llama-2-7b-chat"},
      {"llama2-chat-3950", 3950, "KVCache-Factory (PyramidKV) model2maxlen[\"llama2\"]", ""},
      {"llama3-8b-instruct", 7950, "KVCache-Factory (PyramidKV) model2maxlen[\"llama3\"]", "llama-3-8b-instruct"},
      {"mistral-7b-instruct-v0.2", 31500, "FFY0/AdaKV config/model2maxlen.json", "mistral-7b-instruct-v0.2"},
  };
  return presets;
}

const ModelPreset& find_model_preset(std::string_view name) {
  for (const auto& p : model_presets()) {
    if (p.name == name) return p;
  }
  std::string names;
  for (const auto& p : model_presets()) names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", p.name, p.max_input_tokens);
  throw std::invalid_argument(fmt::format("unknown model preset \"{}\"; choose one of: {}", name, names));
}

std::optional<ModelPreset> preset_for_model_path(const std::string& model_path) {
  auto path = std::filesystem::path(model_path);
  if (!path.has_filename()) path = path.parent_path();  // ".../model/"
  std::string name = path.filename().string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const auto& p : model_presets()) {
    if (!p.model_dir_match.empty() && name.find(p.model_dir_match) != std::string::npos) return p;
  }
  return std::nullopt;
}

}  // namespace ripplekv::eval
