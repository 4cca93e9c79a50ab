#include "core/ripple/sensitivity_profile.h"
#include "models/io/json_error.h"
#include "models/io/input_file.h"

#include "models/loaders/checkpoint_fingerprint.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ripplekv {

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

using nlohmann::json;

std::vector<double> SensitivityProfile::scores(const std::string& statistic) const {
  std::vector<double> out;
  for (const auto& l : layers) {
    if (statistic == "mean") out.push_back(l.mean);
    else if (statistic == "p50") out.push_back(l.p50);
    else if (statistic == "p90") out.push_back(l.p90);
    else if (statistic == "max") out.push_back(l.max);
    else if (statistic == "text_median") {
      if (l.per_text.empty()) {
        throw std::invalid_argument("score=text_median needs the per-text means of each layer (\"per_text\"), which "
                                    "this profile lacks (`ripplekv profile` writes them since they were added; older "
                                    "and hand-made profiles have none): re-run `ripplekv profile`");
      }
      out.push_back(percentile(l.per_text, 0.5));
    } else {
      throw std::invalid_argument(fmt::format("score={}: choose mean, p50, p90, max or text_median", statistic));
    }
  }
  return out;
}

namespace {
void write_atomically(const std::string& path, const std::string& text) {
  const auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", path));
    out << text;
  }
  std::filesystem::rename(tmp, path);
}
}  // namespace

void write_profile_json(const SensitivityProfile& p, const std::string& path) {
  json layers = json::array();
  for (size_t i = 0; i < p.layers.size(); ++i) {
    const auto& l = p.layers[i];
    layers.push_back({{"layer", i}, {"mean", l.mean}, {"stderr", l.stderr_mean}, {"p50", l.p50}, {"p90", l.p90},
                      {"max", l.max}, {"same_top_rate", l.same_top_rate}, {"per_text", l.per_text}});
  }
  json j = {
      {"format", "ripplekv-sensitivity-profile"},
      {"version", 1},
      {"model",
       {{"path", p.model_path}, {"architecture", p.model_architecture}, {"num_layers", p.num_layers},
        {"hidden_size", p.hidden_size}, {"num_heads", p.num_heads}, {"num_kv_heads", p.num_kv_heads},
        {"vocab_size", p.vocab_size}, {"weights_fingerprint", p.weights_fingerprint}, {"dtype", p.dtype}, {"device", p.device}}},
      {"calibration",
       {{"path", p.calibration_path}, {"hash", p.calibration_hash}, {"format", p.calibration_format},
        {"samples", p.samples}, {"skip", p.skip}, {"max_tokens", p.max_tokens}}},
      {"settings",
       {{"eps", p.eps}, {"noise_mode", p.noise_mode}, {"positions", p.positions}, {"kl_positions", p.kl_positions},
        {"draws", p.draws}, {"seed", p.seed}, {"kl_direction", p.kl_direction}}},
      {"seconds", p.seconds},
      {"layers", layers},
  };
  write_atomically(path, j.dump(2) + "\n");
}

void write_profile_csv(const SensitivityProfile& p, const std::string& path) {
  std::string s = "layer,mean_kl,stderr,p50,p90,max,same_top_rate\n";
  for (size_t i = 0; i < p.layers.size(); ++i) {
    const auto& l = p.layers[i];
    s += fmt::format("{},{:.9g},{:.9g},{:.9g},{:.9g},{:.9g},{:.6f}\n", i, l.mean, l.stderr_mean, l.p50, l.p90, l.max,
                     l.same_top_rate);
  }
  write_atomically(path, s);
}

SensitivityProfile read_profile_json(const std::string& path) {
  require_input_file(path, "a sensitivity profile JSON from `ripplekv profile`");
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open the profile (make one with `ripplekv profile`)", path));
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not valid JSON ({})", path, json_error_text(e)));
  }
  auto need = [&](const json& obj, const char* key, const std::string& where) -> const json& {
    if (!obj.is_object() || !obj.contains(key)) {
      throw std::invalid_argument(fmt::format("{}: missing \"{}\"{} (not a ripplekv profile?)", path, key, where));
    }
    return obj[key];
  };
  // Integers must be JSON integers: nlohmann converts a float beyond int64's range with
  // undefined behaviour.
  auto integer = [&](const json& obj, const char* key, const char* where, bool required) -> int64_t {
    if (!obj.is_object() || !obj.contains(key) || obj[key].is_null()) {
      if (required) need(obj, key, where);
      return 0;
    }
    const json& v = obj[key];
    if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{1} << 62)) {
      throw std::invalid_argument(fmt::format("{}: \"{}\"{} must be an integer, got {}", path, key, where, v.dump()));
    }
    return v.get<int64_t>();
  };
  if (!j.is_object()) {
    throw std::invalid_argument(fmt::format("{}: expected a JSON object (a ripplekv sensitivity profile from `ripplekv "
                                            "profile`), got {}",
                                            path, j.type_name()));
  }
  if (!j.contains("format") || !j["format"].is_string() || j["format"] != "ripplekv-sensitivity-profile") {
    throw std::invalid_argument(fmt::format("{}: \"format\" is not \"ripplekv-sensitivity-profile\"", path));
  }
  if (j.contains("version") && j["version"] != json(1)) {
    throw std::invalid_argument(fmt::format("{}: profile version {} is not supported (this ripplekv reads version 1); "
                                            "re-run `ripplekv profile`",
                                            path, j["version"].dump()));
  }
  SensitivityProfile p;
  try {
    const auto& m = need(j, "model", "");
    p.model_path = m.value("path", "");
    p.model_architecture = m.value("architecture", "");
    p.num_layers = integer(m, "num_layers", " in model", true);
    p.hidden_size = integer(m, "hidden_size", " in model", false);
    p.num_heads = integer(m, "num_heads", " in model", false);
    p.num_kv_heads = integer(m, "num_kv_heads", " in model", false);
    p.vocab_size = integer(m, "vocab_size", " in model", false);
    p.weights_fingerprint = m.value("weights_fingerprint", "");
    p.dtype = m.value("dtype", "");
    p.device = m.value("device", "");
    const auto& c = need(j, "calibration", "");
    p.calibration_path = c.value("path", "");
    p.calibration_hash = c.value("hash", "");
    p.calibration_format = c.value("format", "");
    p.samples = integer(c, "samples", " in calibration", false);
    p.skip = integer(c, "skip", " in calibration", false);
    p.max_tokens = integer(c, "max_tokens", " in calibration", false);
    const auto& s = need(j, "settings", "");
    p.eps = s.value("eps", 0.0);
    p.noise_mode = s.value("noise_mode", "");
    p.positions = s.value("positions", "");
    p.kl_positions = integer(s, "kl_positions", " in settings", false);
    p.draws = integer(s, "draws", " in settings", false);
    p.seed = static_cast<uint64_t>(integer(s, "seed", " in settings", false));
    p.kl_direction = s.value("kl_direction", "");
    p.seconds = j.value("seconds", 0.0);
    for (const auto& l : need(j, "layers", "")) {
      LayerSensitivityRecord r;
      // Records are in layer order; "layer", when present, must say so.
      if (l.is_object() && l.contains("layer") && l["layer"] != json(p.layers.size())) {
        throw std::invalid_argument(fmt::format("{}: layers[{}] has \"layer\": {}; the records must list layers 0, "
                                                "1, 2, ... in order, each once",
                                                path, p.layers.size(), l["layer"].dump()));
      }
      r.mean = need(l, "mean", " in layers[]").get<double>();
      r.stderr_mean = l.value("stderr", 0.0);
      r.p50 = l.value("p50", 0.0);
      r.p90 = l.value("p90", 0.0);
      r.max = l.value("max", 0.0);
      r.same_top_rate = l.value("same_top_rate", 0.0);
      // A KL divergence is >= 0 (a float-rounding -1e-12 aside): a negative or non-finite one
      // means a damaged or hand-edited file, and budgets built from it would be meaningless.
      const auto is_kl = [](double v) { return std::isfinite(v) && v >= -1e-6; };
      if (l.contains("per_text")) {
        r.per_text = l["per_text"].get<std::vector<double>>();
        if (!r.per_text.empty() && p.samples > 0 && static_cast<int64_t>(r.per_text.size()) != p.samples) {
          throw std::invalid_argument(fmt::format("{}: layers[{}].per_text has {} values but calibration.samples = {}; "
                                                  "re-run `ripplekv profile`", path, p.layers.size(), r.per_text.size(),
                                                  p.samples));
        }
        for (double v : r.per_text) {
          if (!is_kl(v)) {
            throw std::invalid_argument(fmt::format("{}: layers[{}].per_text holds {}, not a KL divergence (must be "
                                                    "finite and >= 0); re-run `ripplekv profile`", path,
                                                    p.layers.size(), v));
          }
        }
      }
      for (const auto& [key, value] : {std::pair<const char*, double>{"mean", r.mean}, {"p50", r.p50}, {"p90", r.p90},
                                       {"max", r.max}}) {
        if (!is_kl(value)) {
          throw std::invalid_argument(fmt::format("{}: layers[{}].{} = {} is not a KL divergence (must be finite and "
                                                  ">= 0); re-run `ripplekv profile`", path, p.layers.size(), key, value));
        }
      }
      // All layers hold per-text means, as many as layer 0, or none does.
      if (!p.layers.empty() && r.per_text.size() != p.layers[0].per_text.size()) {
        throw std::invalid_argument(fmt::format("{}: layers[{}].per_text has {} values but layers[0].per_text {}; "
                                                "re-run `ripplekv profile`", path, p.layers.size(), r.per_text.size(),
                                                p.layers[0].per_text.size()));
      }
      p.layers.push_back(r);
    }
  } catch (const json::type_error& e) {
    throw std::invalid_argument(fmt::format("{}: a value has the wrong type, {}", path, json_error_text(e)));
  }
  if (static_cast<int64_t>(p.layers.size()) != p.num_layers) {
    throw std::invalid_argument(fmt::format("{}: {} layer records but model.num_layers = {}", path, p.layers.size(),
                                            p.num_layers));
  }
  return p;
}

std::vector<std::string> check_profile_matches(const SensitivityProfile& p, const std::string& profile_path,
                                               int64_t num_layers, const ModelIdentity& model) {
  if (p.num_layers != num_layers) {
    throw std::invalid_argument(fmt::format("{}: the profile has {} layers but the model has {}; profile this model "
                                            "with `ripplekv profile`", profile_path, p.num_layers, num_layers));
  }
  std::vector<std::string> notes;
  if (model.fingerprint.empty() || p.weights_fingerprint.empty()) return notes;
  if (CheckpointFingerprint::is_checkpoint_fingerprint(p.weights_fingerprint)) {
    if (p.weights_fingerprint != model.fingerprint) {
      throw std::invalid_argument(fmt::format("{}: the profile was measured on another checkpoint (fingerprint {} vs "
                                              "this model's {}); profile this model with `ripplekv profile`",
                                              profile_path, p.weights_fingerprint, model.fingerprint));
    }
  } else if (!model.legacy_fingerprint || p.weights_fingerprint != model.legacy_fingerprint()) {
    throw std::invalid_argument(fmt::format(
        "{}: this profile was written by an older ripplekv, whose weights fingerprint depends on the dtype, and it "
        "does not match this model in {}; if it was measured on this checkpoint, run with --dtype {} (the dtype it "
        "was measured in), or re-profile with `ripplekv profile` to get a dtype-independent fingerprint",
        profile_path, model.dtype, p.dtype.empty() ? "float32" : p.dtype));
  }
  const bool other_dtype = !p.dtype.empty() && !model.dtype.empty() && p.dtype != model.dtype;
  const bool other_device = !p.device.empty() && !model.device.empty() && p.device != model.device;
  if (other_dtype || other_device) {
    notes.push_back(fmt::format("{}: profile measured in {} on {}, used in {} on {} (same checkpoint)", profile_path,
                                p.dtype, p.device.empty() ? "an unrecorded device" : p.device, model.dtype,
                                model.device));
  }
  return notes;
}

}  // namespace ripplekv
