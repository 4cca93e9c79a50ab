// Every layer keeps the same number of tokens (SnapKV, StreamingLLM, H2O as published).
#include "core/compress/allocators/allocators.h"

namespace ripplekv {

namespace {
class UniformAllocator final : public LayerBudgetAllocator {
 public:
  std::string name() const override { return "uniform"; }
  std::vector<int64_t> allocate(const AllocationInput& in) const override {
    return std::vector<int64_t>(static_cast<size_t>(in.num_layers), in.budget);
  }
};
}  // namespace

std::unique_ptr<LayerBudgetAllocator> make_uniform_allocator(PolicyOptions&) {
  return std::make_unique<UniformAllocator>();
}

}  // namespace ripplekv
