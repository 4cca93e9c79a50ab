#include "core/compress/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "core/compress/allocators/allocators.h"
#include "core/compress/compression.h"
#include "core/compress/selectors/selectors.h"
#include "core/ripple/ripple_allocator.h"

namespace ripplekv {

const std::vector<SelectorEntry>& selector_table() {
  static const std::vector<SelectorEntry> table = {
      {"full", "keep every token (FullKV)", make_full_selector},
      {"snapkv", "window-attention votes, pooled (window=32 kernel=7 pooling=max gqa=mean)", make_snapkv_selector},
      {"streamingllm", "attention sinks + most recent tokens (sinks=4)", make_streamingllm_selector},
      {"h2o", "attention accumulated over all prompt queries + recent window (window=32 gqa=mean)",
       make_h2o_selector},
      {"random", "uniformly random tokens (seed=0 sinks=0 window=0)", make_random_selector},
      {"knorm", "lowest key L2 norm (sinks=0 window=0)", make_knorm_selector},
      {"cake", "CAKE's indicator: window attention mean + gamma * variance, pooled (window=32 kernel=5 gamma=200)",
       make_cake_selector},
  };
  return table;
}

const std::vector<AllocatorEntry>& allocator_table() {
  static const std::vector<AllocatorEntry> table = {
      {"uniform", "the same budget for every layer", make_uniform_allocator},
      {"pyramid", "PyramidKV's decreasing schedule (beta=20)", make_pyramid_allocator},
      {"profile", "per-layer multipliers from a file (file=PATH)", make_profile_allocator},
      {"cake", "CAKE: preference from window-attention entropy and variance (tau1=1 tau2=1)", make_cake_allocator},
      {"squeeze", "SqueezeAttention: 3 clusters of attention cosine similarity (p=0.3)", make_squeeze_allocator},
      {"ripple", "RippleKV: measured KL sensitivity -> exponential budgets (profile=PATH ratio=4 normalize=minmax)",
       make_ripple_allocator},
  };
  return table;
}

std::vector<std::string> selector_names() {
  std::vector<std::string> out;
  for (const auto& e : selector_table()) out.emplace_back(e.name);
  return out;
}
std::vector<std::string> allocator_names() {
  std::vector<std::string> out;
  for (const auto& e : allocator_table()) out.emplace_back(e.name);
  return out;
}

std::unique_ptr<TokenSelector> make_selector(const std::string& name, PolicyOptions& options) {
  for (const auto& e : selector_table()) {
    if (name == e.name) return e.make(options);
  }
  throw std::invalid_argument(
      fmt::format("unknown selector \"{}\"; valid selectors: {}", name, fmt::join(selector_names(), ", ")));
}

std::unique_ptr<LayerBudgetAllocator> make_allocator(const std::string& name, PolicyOptions& options) {
  for (const auto& e : allocator_table()) {
    if (name == e.name) return e.make(options);
  }
  throw std::invalid_argument(
      fmt::format("unknown allocator \"{}\"; valid allocators: {}", name, fmt::join(allocator_names(), ", ")));
}

}  // namespace ripplekv
