#include "core/compress/policy_catalog.h"

#include <fmt/format.h>

#include "core/ripple/ripple_options.h"

namespace ripplekv {

namespace {
using K = OptionKind;

OptionSpec window(const char* fallback) {
  return {"window", K::kInt, fallback, "observation window: the last W prompt tokens, always kept"};
}
OptionSpec sinks(const char* fallback) { return {"sinks", K::kInt, fallback, "the first N prompt tokens, always kept"}; }
OptionSpec exact_total() {
  return {"exact_total", K::kInt, "1", "1: give back the tokens the schedule's rounding drops, so the total is L x B"};
}

const PolicyInfo* find(const std::vector<PolicyInfo>& rows, const std::string& name) {
  for (const auto& r : rows) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

std::string table(const char* what, const std::vector<PolicyInfo>& rows) {
  std::string out = fmt::format("| {} | options (default) | reference |\n|---|---|---|\n", what);
  for (const auto& r : rows) {
    std::string opts = option_defaults_text(r.options);
    std::string escaped;
    for (char c : opts) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
    out += fmt::format("| `{}` | {} | {} |\n", r.name, escaped, r.reference);
  }
  return out;
}
}  // namespace

const std::vector<PolicyInfo>& selector_catalog() {
  static const std::vector<PolicyInfo> rows = {
      {"full", "keep every token (FullKV)", "FullKV", {}},
      {"snapkv", "window-attention votes, pooled",
       "SnapKV / KVCache-Factory (LongBench defaults); GQA mean as kvpress; gqa=none selects per query head as the "
       "original SnapKV code (the layer then stores group-size x the KV memory)",
       {window("32"),
        {"kernel", K::kInt, "7", "pooling kernel over the votes (odd)"},
        {"pooling", K::kChoice, "max", "pooling of the votes", {"max", "avg", "none"}},
        {"gqa", K::kChoice, "mean", "how a KV group's query heads combine their votes (none: per query head)",
         {"mean", "max", "sum", "none"}}}},
      {"streamingllm", "attention sinks + most recent tokens",
       "StreamingLLM (sinks=B-W gives KVCache-Factory's variant)", {sinks("4")}},
      {"h2o", "attention accumulated over all prompt queries + recent window",
       "H2O, KVCache-Factory one-shot form (attention of all prompt queries, chunked)",
       {window("32"),
        {"gqa", K::kChoice, "mean", "how a KV group's query heads combine their scores", {"mean", "max", "sum"}}}},
      {"random", "uniformly random tokens", "floor",
       {{"seed", K::kInt, "0", "random seed (per layer streams)"}, sinks("0"), window("0")}},
      {"knorm", "lowest key L2 norm", "kvpress KnormPress", {sinks("0"), window("0")}},
      {"cake", "CAKE's indicator: window attention mean + gamma * variance, pooled", "CAKE's eviction indicator",
       {window("32"),
        {"kernel", K::kInt, "5", "pooling kernel (odd)"},
        {"gamma", K::kNumber, "200", "weight of the attention variance (>= 0)"}}},
  };
  return rows;
}

const std::vector<PolicyInfo>& allocator_catalog() {
  static const std::vector<PolicyInfo> rows = {
      {"uniform", "the same budget for every layer", "", {}},
      {"pyramid", "PyramidKV's decreasing schedule",
       "PyramidKV (KVCache-Factory schedule incl. its short-prompt fallback; the few tokens its integer steps drop "
       "are given back unless exact_total=0)",
       {{"beta", K::kInt, "20", "the schedule's slope parameter (>= 1)"}, exact_total()}},
      {"profile", "per-layer multipliers from a file", "per-layer multipliers from a file",
       {{"file", K::kText, "", "one positive multiplier per layer: a line each, or a JSON array"}}},
      {"cake", "CAKE: preference from window-attention entropy and variance",
       "CAKE (entropy^(1/tau1) x variance^(1/tau2), adjust_budgets)",
       {{"tau1", K::kNumber, "1", "temperature of the entropy (> 0)"},
        {"tau2", K::kNumber, "1", "temperature of the variance (> 0)"},
        {"cake_window", K::kInt, "0", "window of the statistics (0: the selector's window)"},
        exact_total()}},
      {"squeeze", "SqueezeAttention: 3 clusters of attention cosine similarity",
       "SqueezeAttention (3 groups by attention cosine similarity)",
       {{"p", K::kNumber, "0.3", "the least important group keeps p x B tokens per layer, in (0, 1]"}, exact_total()}},
      {"ripple", "RippleKV: measured KL sensitivity -> exponential budgets", "RippleKV", ripple_option_specs(),
       /*model_bound=*/true},
      {"ripple_prompt", "RippleKV measured on each prompt: KL of its last tokens, one layer's cached values perturbed",
       "RippleKV, prompt-adaptive (this toolkit)", ripple_prompt_option_specs()},
  };
  return rows;
}

const PolicyInfo* find_selector_info(const std::string& name) { return find(selector_catalog(), name); }
const PolicyInfo* find_allocator_info(const std::string& name) { return find(allocator_catalog(), name); }

bool allocator_is_model_bound(const std::string& name) {
  const auto* info = find_allocator_info(name);
  return info && info->model_bound;
}

const OptionSpec* find_option(const PolicyInfo& policy, const std::string& key) {
  for (const auto& o : policy.options) {
    if (o.name == key) return &o;
  }
  return nullptr;
}

bool allocator_declares(const std::string& name, const std::string& key) {
  const auto* info = find_allocator_info(name);
  return info && find_option(*info, key);
}

const OptionSpec* find_policy_option(const std::string& key) {
  for (const auto* rows : {&selector_catalog(), &allocator_catalog()}) {
    for (const auto& r : *rows) {
      if (const OptionSpec* o = find_option(r, key)) return o;
    }
  }
  return nullptr;
}

std::string policy_tables_markdown() {
  return table("selector", selector_catalog()) + "\n" + table("allocator", allocator_catalog());
}

std::string policy_options_text() {
  std::string out;
  for (const auto& [what, rows] : {std::pair{"selector", &selector_catalog()}, std::pair{"allocator", &allocator_catalog()}}) {
    for (const auto& r : *rows) {
      out += fmt::format("{} {}: {}\n", what, r.name, r.summary);
      for (const auto& o : r.options) {
        const std::string shown = o.name + "=" + (o.default_value.empty() ? "PATH" : o.default_value);
        out += fmt::format("    {:<28} {} ({})\n", shown, o.help, option_kind_text(o));
      }
    }
  }
  return out;
}

}  // namespace ripplekv
