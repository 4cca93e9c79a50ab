#include "core/compress/registry.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "core/compress/allocators/allocators.h"
#include "core/compress/compression.h"
#include "core/compress/selectors/selectors.h"
#include "core/ripple/profile_runner.h"
#include "core/ripple/ripple_allocator.h"

namespace ripplekv {

namespace {

// Every catalog row has a factory and every factory a row (checked once, at first use).
template <typename Entry, typename Make>
std::vector<Entry> pair_with_catalog(const std::vector<PolicyInfo>& catalog,
                                     const std::vector<std::pair<const char*, Make>>& factories, const char* what) {
  if (catalog.size() != factories.size()) throw std::logic_error(fmt::format("{} catalog and factories differ", what));
  std::vector<Entry> out;
  for (const auto& [name, make] : factories) {
    const PolicyInfo* info = nullptr;
    for (const auto& row : catalog) {
      if (row.name == name) info = &row;
    }
    if (!info) throw std::logic_error(fmt::format("{} \"{}\" has a factory but no catalog row", what, name));
    out.push_back({info, make});
  }
  return out;
}

}  // namespace

const std::vector<SelectorEntry>& selector_table() {
  using Make = std::unique_ptr<TokenSelector> (*)(PolicyOptions&);
  static const std::vector<SelectorEntry> table = pair_with_catalog<SelectorEntry, Make>(
      selector_catalog(),
      {{"full", make_full_selector},
       {"snapkv", make_snapkv_selector},
       {"streamingllm", make_streamingllm_selector},
       {"h2o", make_h2o_selector},
       {"random", make_random_selector},
       {"knorm", make_knorm_selector},
       {"cake", make_cake_selector}},
      "selector");
  return table;
}

const std::vector<AllocatorEntry>& allocator_table() {
  using Make = std::unique_ptr<LayerBudgetAllocator> (*)(PolicyOptions&);
  using Prepare = CompressionSpec (*)(CompressionSpec, const OpenedModel&);
  static const std::vector<AllocatorEntry> table = [] {
    auto t = pair_with_catalog<AllocatorEntry, Make>(allocator_catalog(),
                                                     {{"uniform", make_uniform_allocator},
                                                      {"pyramid", make_pyramid_allocator},
                                                      {"profile", make_profile_allocator},
                                                      {"cake", make_cake_allocator},
                                                      {"squeeze", make_squeeze_allocator},
                                                      {"ripple", make_ripple_allocator},
                                                      {"ripple_prompt", make_prompt_ripple_allocator}},
                                                     "allocator");
    // The model-bound rows (and only they) complete their spec from the model.
    const std::vector<std::pair<const char*, Prepare>> prepare = {{"ripple", prepare_ripple_spec}};
    for (auto& e : t) {
      for (const auto& [name, fn] : prepare) {
        if (e.info->name == name) e.prepare = fn;
      }
      if (e.info->model_bound != static_cast<bool>(e.prepare)) {
        throw std::logic_error(fmt::format("allocator \"{}\": model_bound in the catalog but no prepare step, or "
                                           "the reverse", e.info->name));
      }
    }
    return t;
  }();
  return table;
}

const AllocatorEntry* find_allocator_entry(const std::string& name) {
  for (const auto& e : allocator_table()) {
    if (name == e.info->name) return &e;
  }
  return nullptr;
}

std::vector<std::string> selector_names() {
  std::vector<std::string> out;
  for (const auto& e : selector_table()) out.push_back(e.info->name);
  return out;
}
std::vector<std::string> allocator_names() {
  std::vector<std::string> out;
  for (const auto& e : allocator_table()) out.push_back(e.info->name);
  return out;
}

std::unique_ptr<TokenSelector> make_selector(const std::string& name, PolicyOptions& options) {
  for (const auto& e : selector_table()) {
    if (name == e.info->name) {
      options.declare(e.info->name, e.info->options);
      return e.make(options);
    }
  }
  throw std::invalid_argument(
      fmt::format("unknown selector \"{}\"; valid selectors: {}", name, fmt::join(selector_names(), ", ")));
}

std::unique_ptr<LayerBudgetAllocator> make_allocator(const std::string& name, PolicyOptions& options) {
  for (const auto& e : allocator_table()) {
    if (name == e.info->name) {
      options.declare(e.info->name, e.info->options);
      return e.make(options);
    }
  }
  throw std::invalid_argument(
      fmt::format("unknown allocator \"{}\"; valid allocators: {}", name, fmt::join(allocator_names(), ", ")));
}

}  // namespace ripplekv
