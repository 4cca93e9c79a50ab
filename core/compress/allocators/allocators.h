// Factories of the built-in layer budget allocators (one file each); see registry.cpp.
#pragma once

#include <memory>

#include "core/compress/layer_budget_allocator.h"
#include "core/compress/policy_options.h"

namespace ripplekv {

std::unique_ptr<LayerBudgetAllocator> make_uniform_allocator(PolicyOptions& o);
std::unique_ptr<LayerBudgetAllocator> make_pyramid_allocator(PolicyOptions& o);
std::unique_ptr<LayerBudgetAllocator> make_profile_allocator(PolicyOptions& o);
std::unique_ptr<LayerBudgetAllocator> make_cake_allocator(PolicyOptions& o);
std::unique_ptr<LayerBudgetAllocator> make_squeeze_allocator(PolicyOptions& o);

// cake.utils.adjust_budgets: clamp to seq_len, spread the excess evenly over layers below it,
// then spread any remaining difference to the total. Exposed for tests.
std::vector<int64_t> cake_adjust_budgets(std::vector<int64_t> budgets, int64_t total, int64_t seq_len);
// Exact 1-D k-means into 3 clusters (contiguous in sorted order), sorted by centre ascending.
std::vector<std::vector<int64_t>> kmeans_1d_exact(const std::vector<double>& values, int k);

// PyramidKV's per-layer schedule exactly as KVCache-Factory computes it (pyramidkv_utils.py,
// PyramidKVCluster.update_kv): kept tokens per layer, window included, before any correction
// of the total. Exposed for tests.
std::vector<int64_t> pyramid_reference_schedule(int64_t num_layers, int64_t budget, int64_t window, int64_t beta,
                                                int64_t prompt_len);

}  // namespace ripplekv
