// Factories of RippleKV's layer budget allocators (registered in core/compress/registry.cpp):
// `ripple` (a stored profile, ripple_allocator.cpp) and `ripple_prompt` (each prompt measured
// after its prefill, prompt_ripple_allocator.cpp).
#pragma once

#include <memory>

#include "core/compress/layer_budget_allocator.h"
#include "core/compress/policy_options.h"

namespace ripplekv {
std::unique_ptr<LayerBudgetAllocator> make_ripple_allocator(PolicyOptions& o);
std::unique_ptr<LayerBudgetAllocator> make_prompt_ripple_allocator(PolicyOptions& o);
}  // namespace ripplekv
