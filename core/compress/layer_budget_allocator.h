// A layer budget allocator decides HOW MANY prompt tokens each layer keeps, given the total
// (num_layers * budget) and whatever per-layer statistics it asked for during prefill. It
// returns integers summing exactly to the total within [min_per_layer, prompt_len].
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

namespace ripplekv {

class CausalLM;
class KVCache;

struct AllocatorNeeds {
  int64_t window_probs = 0;     // AttnWindow over the last W queries (-1: the selector's window, or 32)
  bool hidden_states = false;   // LayerInput and AttnResidual hidden states
  // > 0: the allocator measures the prompt itself after prefill (probe()), replaying its last
  // probe_tokens tokens through the model; the session keeps their layer-0 input for that.
  int64_t probe_tokens = 0;
};

// What probe() may read, right after prefill: the model, the prompt's full cache (every layer
// holds the whole prompt) and the layer-0 input of the prompt's last probe_tokens tokens
// [1, probe_tokens, hidden].
struct PromptProbe {
  const CausalLM& model;
  const KVCache& cache;
  const at::Tensor& window_input;
};

struct AllocationInput {
  int64_t num_layers = 0;
  int64_t budget = 0;          // average per layer; total = num_layers * budget
  int64_t prompt_len = 0;      // > budget (shorter prompts are not compressed)
  int64_t min_per_layer = 0;   // what the selector always keeps (sinks + window)
  int64_t window = 0;          // the selector's observation window
  std::vector<double> stats;   // one statistic per layer from observe_*() or probe(), if any
};

class LayerBudgetAllocator {
 public:
  virtual ~LayerBudgetAllocator() = default;
  virtual std::string name() const = 0;
  virtual AllocatorNeeds needs() const { return {}; }
  // Per-layer statistics, called during prefill; return a 0-d tensor (no host sync here).
  virtual at::Tensor observe_attention(int64_t /*layer*/, const at::Tensor& /*window_probs*/) const { return {}; }
  virtual at::Tensor observe_hidden(int64_t /*layer*/, const at::Tensor& /*before_attention*/,
                                    const at::Tensor& /*after_attention*/) const {
    return {};
  }
  // Per-layer statistics measured on the prompt after prefill (for needs().probe_tokens > 0):
  // one value per layer. It must leave the cache as it found it.
  virtual std::vector<double> probe(const PromptProbe& /*probe*/) const { return {}; }
  virtual std::vector<int64_t> allocate(const AllocationInput& in) const = 0;
  // False when configured to reproduce a reference implementation whose total may drift
  // from num_layers * budget (exact_total=0); the bounds are still enforced.
  virtual bool exact_total() const { return true; }
};

}  // namespace ripplekv
