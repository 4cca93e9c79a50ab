// Factories of the built-in layer budget allocators (one file each); see registry.cpp.
#pragma once

#include <memory>

#include "core/compress/layer_budget_allocator.h"
#include "core/compress/policy_options.h"

namespace ripplekv {

std::unique_ptr<LayerBudgetAllocator> make_uniform_allocator(PolicyOptions& o);
std::unique_ptr<LayerBudgetAllocator> make_pyramid_allocator(PolicyOptions& o);
std::unique_ptr<LayerBudgetAllocator> make_profile_allocator(PolicyOptions& o);

// PyramidKV's per-layer schedule exactly as KVCache-Factory computes it (pyramidkv_utils.py,
// PyramidKVCluster.update_kv): kept tokens per layer, window included, before any correction
// of the total. Exposed for tests.
std::vector<int64_t> pyramid_reference_schedule(int64_t num_layers, int64_t budget, int64_t window, int64_t beta,
                                                int64_t prompt_len);

}  // namespace ripplekv
