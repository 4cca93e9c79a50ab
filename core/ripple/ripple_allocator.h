// Factory of RippleKV's `ripple` layer budget allocator (registered in core/compress/registry.cpp).
#pragma once

#include <memory>

#include "core/compress/layer_budget_allocator.h"
#include "core/compress/policy_options.h"

namespace ripplekv {
std::unique_ptr<LayerBudgetAllocator> make_ripple_allocator(PolicyOptions& o);
}  // namespace ripplekv
