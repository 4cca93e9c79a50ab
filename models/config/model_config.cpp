#include "models/config/model_config.h"
#include "models/io/json_error.h"
#include "models/io/input_file.h"

#include <fmt/format.h>
#include <type_traits>
#include <limits>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ripplekv {

using nlohmann::json;

void ModelConfig::validate(const std::string& source) const {
  auto bad = [&](const std::string& what) {
    throw std::invalid_argument(fmt::format("{}: {}", source, what));
  };
  if (vocab_size <= 0) bad("vocab_size must be positive");
  if (hidden_size <= 0) bad("hidden_size must be positive");
  if (num_layers <= 0) bad("num_hidden_layers must be positive");
  if (num_heads <= 0) bad("num_attention_heads must be positive");
  if (num_kv_heads <= 0) bad("num_key_value_heads must be positive");
  if (num_heads % num_kv_heads != 0) {
    bad(fmt::format("num_key_value_heads={} does not divide num_attention_heads={}; fix the config "
                    "(grouped-query attention needs a whole number of query heads per KV head)",
                    num_kv_heads, num_heads));
  }
  if (head_dim <= 0 || head_dim % 2 != 0) bad(fmt::format("head_dim={} must be positive and even (RoPE rotates pairs)", head_dim));
  if (intermediate_size <= 0) bad("intermediate_size must be positive");
  if (!(rms_norm_eps > 0)) bad("rms_norm_eps must be positive");
  if (!(rope_theta > 0)) bad("rope_theta must be positive");
  if (rope_scaling.type != RopeScalingType::None && !(rope_scaling.factor > 0)) bad("rope_scaling.factor must be positive");
  if (rope_scaling.type == RopeScalingType::Llama3) {
    if (rope_scaling.original_max_position_embeddings <= 0) bad("rope_scaling.original_max_position_embeddings must be positive");
    if (!(rope_scaling.high_freq_factor > rope_scaling.low_freq_factor)) bad("rope_scaling: high_freq_factor must exceed low_freq_factor");
  }
}

namespace {

template <typename T>
T get_required(const json& j, const char* key, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) {
    throw std::invalid_argument(fmt::format("{}: missing required key \"{}\"", source, key));
  }
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    // nlohmann converts any number to an integer type, and a float beyond its range is
    // undefined behaviour (found by fuzzing): accept integers, and floats that hold one exactly.
    const json& v = j[key];
    const bool exact_float = v.is_number_float() && std::isfinite(v.get<double>()) &&
                             std::trunc(v.get<double>()) == v.get<double>() &&
                             std::fabs(v.get<double>()) <= static_cast<double>(std::numeric_limits<T>::max() / 2);
    if (!(v.is_number_integer() || exact_float)) {
      throw std::invalid_argument(fmt::format("{}: key \"{}\" has the wrong type: it must be an integer (got {})", source, key, v.dump()));
    }
    if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      throw std::invalid_argument(fmt::format("{}: key \"{}\" = {} is out of range", source, key, v.dump()));
    }
  }
  try {
    return j[key].get<T>();
  } catch (const json::exception&) {
    throw std::invalid_argument(fmt::format("{}: key \"{}\" has the wrong type ({})", source, key, j[key].dump()));
  }
}

template <typename T>
T get_or(const json& j, const char* key, T fallback, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  return get_required<T>(j, key, source);
}

std::vector<int64_t> id_list(const json& j, const char* key, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return {};
  if (j[key].is_array()) {
    std::vector<int64_t> out;
    for (const auto& v : j[key]) {
      if (!v.is_number_integer()) throw std::invalid_argument(fmt::format("{}: \"{}\" must hold integers", source, key));
      out.push_back(v.get<int64_t>());
    }
    return out;
  }
  return {get_required<int64_t>(j, key, source)};
}

}  // namespace

ModelConfig parse_hf_config_text(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not valid JSON ({})", source, json_error_text(e)));
  }
  if (!j.is_object()) throw std::invalid_argument(fmt::format("{}: expected a JSON object", source));

  ModelConfig c;
  c.model_type = get_or<std::string>(j, "model_type", "", source);
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty()) {
    c.architecture = j["architectures"][0].get<std::string>();
  }
  static const char* kSupported[] = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"};
  bool known = false;
  for (auto* a : kSupported) known = known || c.architecture == a;
  if (!known) {
    if (c.architecture.empty() && (c.model_type == "llama" || c.model_type == "mistral" || c.model_type == "qwen2")) {
      c.architecture = c.model_type == "llama" ? "LlamaForCausalLM" : c.model_type == "mistral" ? "MistralForCausalLM" : "Qwen2ForCausalLM";
    } else {
      throw std::invalid_argument(fmt::format(
          "{}: architecture \"{}\" (model_type \"{}\") is not supported; supported: LlamaForCausalLM, "
          "MistralForCausalLM, Qwen2ForCausalLM", source, c.architecture, c.model_type));
    }
  }
  const bool is_qwen2 = c.architecture == "Qwen2ForCausalLM";

  c.vocab_size = get_required<int64_t>(j, "vocab_size", source);
  c.hidden_size = get_required<int64_t>(j, "hidden_size", source);
  c.num_layers = get_required<int64_t>(j, "num_hidden_layers", source);
  c.num_heads = get_required<int64_t>(j, "num_attention_heads", source);
  c.num_kv_heads = get_or<int64_t>(j, "num_key_value_heads", c.num_heads, source);
  c.head_dim = get_or<int64_t>(j, "head_dim", c.num_heads > 0 ? c.hidden_size / c.num_heads : 0, source);
  c.intermediate_size = get_required<int64_t>(j, "intermediate_size", source);
  c.rms_norm_eps = get_or<double>(j, "rms_norm_eps", 1e-6, source);
  c.rope_theta = get_or<double>(j, "rope_theta", 10000.0, source);
  c.tie_word_embeddings = get_or<bool>(j, "tie_word_embeddings", false, source);
  c.attention_bias = is_qwen2 ? true : get_or<bool>(j, "attention_bias", false, source);
  c.max_position_embeddings = get_or<int64_t>(j, "max_position_embeddings", 4096, source);
  if (c.max_position_embeddings < 1) {
    throw std::invalid_argument(fmt::format("{}: max_position_embeddings={} must be positive (the model's context "
                                            "length)",
                                            source, c.max_position_embeddings));
  }
  c.bos_token_ids = id_list(j, "bos_token_id", source);
  c.eos_token_ids = id_list(j, "eos_token_id", source);

  const auto act = get_or<std::string>(j, "hidden_act", "silu", source);
  if (act != "silu") {
    throw std::invalid_argument(fmt::format("{}: hidden_act \"{}\" is not supported (only silu)", source, act));
  }
  if (get_or<bool>(j, "mlp_bias", false, source)) {
    throw std::invalid_argument(fmt::format("{}: mlp_bias=true is not supported", source));
  }
  if (is_qwen2 && !get_or<bool>(j, "attention_bias", true, source)) {
    // Qwen2 always has q/k/v biases in HF; a config saying otherwise is not a Qwen2 we know.
    throw std::invalid_argument(fmt::format("{}: Qwen2 without attention biases is not supported", source));
  }

  // Sliding-window attention: only acceptable when the window covers the whole context.
  const bool window_used = is_qwen2 ? get_or<bool>(j, "use_sliding_window", false, source) : true;
  if (window_used && j.contains("sliding_window") && !j["sliding_window"].is_null()) {
    const auto w = get_required<int64_t>(j, "sliding_window", source);
    if (w < c.max_position_embeddings) {
      throw std::invalid_argument(fmt::format(
          "{}: sliding_window={} is shorter than max_position_embeddings={}; sliding-window attention is "
          "not supported (set sliding_window to null if the model was trained without it)",
          source, w, c.max_position_embeddings));
    }
  }

  if (j.contains("layer_types") && j["layer_types"].is_array()) {
    for (const auto& t : j["layer_types"]) {
      if (!t.is_string() || t.get<std::string>() != "full_attention") {
        throw std::invalid_argument(fmt::format("{}: layer_types contains {}; only full_attention layers are supported",
                                                source, t.dump()));
      }
    }
  }

  // RoPE settings: transformers < 5 writes top-level rope_theta + rope_scaling; transformers 5
  // writes one rope_parameters object holding rope_type, rope_theta and the scaling fields.
  const char* rope_key = nullptr;
  if (j.contains("rope_parameters") && j["rope_parameters"].is_object()) {
    rope_key = "rope_parameters";
    c.rope_theta = get_or<double>(j["rope_parameters"], "rope_theta", c.rope_theta, source + ": rope_parameters");
  } else if (j.contains("rope_scaling") && !j["rope_scaling"].is_null()) {
    rope_key = "rope_scaling";
  }
  if (rope_key) {
    const auto& rs = j[rope_key];
    const std::string where = source + ": " + rope_key;
    if (!rs.is_object()) throw std::invalid_argument(where + " must be an object");
    std::string type = rs.contains("rope_type") ? get_required<std::string>(rs, "rope_type", where)
                                                : get_or<std::string>(rs, "type", "", where);
    if (type == "linear") {
      c.rope_scaling.type = RopeScalingType::Linear;
      c.rope_scaling.factor = get_required<double>(rs, "factor", where);
    } else if (type == "llama3") {
      c.rope_scaling.type = RopeScalingType::Llama3;
      c.rope_scaling.factor = get_required<double>(rs, "factor", where);
      c.rope_scaling.low_freq_factor = get_required<double>(rs, "low_freq_factor", where);
      c.rope_scaling.high_freq_factor = get_required<double>(rs, "high_freq_factor", where);
      c.rope_scaling.original_max_position_embeddings =
          get_required<int64_t>(rs, "original_max_position_embeddings", where);
    } else if (type == "default" || type.empty()) {
      c.rope_scaling.type = RopeScalingType::None;
    } else {
      throw std::invalid_argument(fmt::format(
          "{}: type \"{}\" is not supported (supported: linear, llama3)", where, type));
    }
  }
  c.validate(source);
  return c;
}

ModelConfig parse_hf_config_file(const std::string& path) {
  require_input_file(path, "a Hugging Face config.json");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open the model config", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_hf_config_text(ss.str(), path);
}

void add_generation_config_eos(ModelConfig& c, const std::string& path) {
  std::ifstream in(path);
  if (!in) return;
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not valid JSON ({})", path, json_error_text(e)));
  }
  for (auto id : id_list(j, "eos_token_id", path)) {
    if (std::find(c.eos_token_ids.begin(), c.eos_token_ids.end(), id) == c.eos_token_ids.end()) {
      c.eos_token_ids.push_back(id);
    }
  }
}

std::vector<double> rope_inverse_frequencies(const ModelConfig& c) {
  const int64_t half = c.head_dim / 2;
  std::vector<double> inv(static_cast<size_t>(half));
  for (int64_t i = 0; i < half; ++i) {
    inv[i] = 1.0 / std::pow(c.rope_theta, static_cast<double>(2 * i) / static_cast<double>(c.head_dim));
  }
  const auto& rs = c.rope_scaling;
  if (rs.type == RopeScalingType::Linear) {
    for (auto& f : inv) f /= rs.factor;
  } else if (rs.type == RopeScalingType::Llama3) {
    // Llama 3.1: long wavelengths are divided by `factor`, short ones kept, and the band in
    // between interpolated smoothly (transformers' _compute_llama3_parameters).
    const double old_len = static_cast<double>(rs.original_max_position_embeddings);
    const double low_wavelen = old_len / rs.low_freq_factor;
    const double high_wavelen = old_len / rs.high_freq_factor;
    for (auto& f : inv) {
      const double wavelen = 2.0 * M_PI / f;
      if (wavelen > low_wavelen) {
        f = f / rs.factor;
      } else if (wavelen >= high_wavelen) {
        const double smooth = (old_len / wavelen - rs.low_freq_factor) / (rs.high_freq_factor - rs.low_freq_factor);
        f = (1.0 - smooth) * f / rs.factor + smooth * f;
      }
    }
  }
  return inv;
}

}  // namespace ripplekv
