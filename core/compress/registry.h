// The one table mapping policy names to factories. Each row is a policy of the catalog
// (core/compress/policy_catalog.h: summary, reference, option schema) with its factory; the
// factory's PolicyOptions come with that row's options declared. An unknown name is an error
// listing the valid names.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/compress/compression.h"
#include "core/compress/layer_budget_allocator.h"
#include "core/compress/policy_catalog.h"
#include "core/compress/policy_options.h"
#include "core/compress/token_selector.h"

namespace ripplekv {

class OpenedModel;

struct SelectorEntry {
  const PolicyInfo* info;  // its catalog row
  std::function<std::unique_ptr<TokenSelector>(PolicyOptions&)> make;
};
struct AllocatorEntry {
  const PolicyInfo* info;
  std::function<std::unique_ptr<LayerBudgetAllocator>(PolicyOptions&)> make;
  // For a model-bound allocator: completes the spec from the model before `make` (ripple
  // without profile= measures and caches its profile, then names it). Empty for the others.
  std::function<CompressionSpec(CompressionSpec, const OpenedModel&)> prepare;
};

const std::vector<SelectorEntry>& selector_table();
const std::vector<AllocatorEntry>& allocator_table();
// nullptr for an unknown name.
const AllocatorEntry* find_allocator_entry(const std::string& name);

std::unique_ptr<TokenSelector> make_selector(const std::string& name, PolicyOptions& options);
std::unique_ptr<LayerBudgetAllocator> make_allocator(const std::string& name, PolicyOptions& options);

}  // namespace ripplekv
