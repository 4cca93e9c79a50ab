#include "core/compress/method_presets.h"

#include <fmt/format.h>

#include <sstream>
#include <stdexcept>

#include "core/compress/policy_options.h"

namespace ripplekv {

const std::vector<MethodPreset>& method_presets() {
  static const std::vector<MethodPreset> table = {
      {"full", "full", "uniform", "FullKV: no compression"},
      {"snapkv", "snapkv", "uniform", "SnapKV: window-attention votes, same budget per layer"},
      {"pyramidkv", "snapkv", "pyramid", "PyramidKV: SnapKV selection, pyramid layer schedule"},
      {"streamingllm", "streamingllm", "uniform", "StreamingLLM: attention sinks + recent tokens"},
      {"h2o", "h2o", "uniform", "H2O: accumulated attention heavy hitters + recent tokens"},
      {"cake", "cake", "cake", "CAKE: entropy/variance layer preference and its eviction indicator"},
      {"squeeze", "snapkv", "squeeze", "SqueezeAttention: 3 layer groups by attention cosine similarity, SnapKV selection"},
      {"ripple", "snapkv", "ripple", "RippleKV: measured KL sensitivity -> exponential budgets, SnapKV selection"},
      {"ripple_prompt", "snapkv", "ripple_prompt",
       "RippleKV measured on each prompt after its prefill -> exponential budgets, SnapKV selection"},
      {"random", "random", "uniform", "random tokens (a floor)"},
      {"knorm", "knorm", "uniform", "lowest key norm"},
  };
  return table;
}

std::string method_preset_names() {
  std::string out;
  for (const auto& p : method_presets()) out += (out.empty() ? "" : " ") + std::string(p.name);
  return out;
}

CompressionSpec parse_method(const std::string& text, int64_t budget) {
  CompressionSpec spec;
  spec.budget = budget;
  std::string head = text, opts;
  const auto at = text.find('@');
  if (at != std::string::npos) {
    head = text.substr(0, at);
    opts = text.substr(at + 1);
  }
  const auto colon = head.find(':');
  if (colon != std::string::npos) {
    spec.selector = head.substr(0, colon);
    spec.allocator = head.substr(colon + 1);
  } else {
    bool found = false;
    for (const auto& p : method_presets()) {
      if (head == p.name) {
        spec.selector = p.selector;
        spec.allocator = p.allocator;
        found = true;
      }
    }
    if (!found) {
      std::string names;
      for (const auto& p : method_presets()) names += std::string(names.empty() ? "" : ", ") + p.name;
      throw std::invalid_argument(fmt::format("unknown method \"{}\"; use one of {} or selector:allocator", head, names));
    }
  }
  std::stringstream ss(opts);
  std::string kv;
  while (std::getline(ss, kv, ',')) {
    if (kv.empty()) continue;
    auto [k, v] = parse_key_value(kv);
    if (!spec.options.emplace(k, v).second) {
      throw std::invalid_argument(fmt::format("method \"{}\": option {} given twice", text, k));
    }
  }
  return spec;
}

std::vector<std::string> split_methods(const std::string& list) {
  std::vector<std::string> out;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.find_first_not_of(" \t") == std::string::npos) {
      throw std::invalid_argument(fmt::format("\"{}\": an empty item in the method list (methods are separated by "
                                              "single commas)",
                                              list));
    }
    // "key=value" right after a method with '@' options belongs to that method.
    if (!out.empty() && item.find('=') != std::string::npos && item.find('@') == std::string::npos &&
        out.back().find('@') != std::string::npos) {
      out.back() += "," + item;
    } else {
      out.push_back(item);
    }
  }
  return out;
}

}  // namespace ripplekv
