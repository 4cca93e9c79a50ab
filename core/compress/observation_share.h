// Observations shared between the compression sessions of one prefill. When the engine (or
// fidelity) prefills a prompt once for many variants, sessions whose selector computes the
// same scores (same selector, same options, from the same attention window) or whose
// allocator computes the same per-layer statistics read one copy instead of each computing
// its own: snapkv at budgets 128, 256 and 512, snapkv x pyramid and snapkv x ripple all score
// tokens once. The first session with a key registers the hooks and fills the entry; the
// others only read it in finish(). (An allocator that probes the prompt after prefill,
// ripple_prompt, fills its entry in the first finish() instead; every session keeps the input
// it would replay.) Keys hold everything the computation depends on, so a
// shared result is bit-identical to the one each session would have computed. One per
// prefill; it must outlive the sessions that use it. Torch-free header.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace at {
class Tensor;
}

namespace ripplekv {

class ObservationShare {
 public:
  using PerLayer = std::vector<at::Tensor>;
  // The entry for `key`, with num_layers slots, and whether this call created it (then the
  // caller computes it).
  std::pair<std::shared_ptr<PerLayer>, bool> entry(const std::string& key, int64_t num_layers);
  std::size_t size() const { return entries_.size(); }

 private:
  std::map<std::string, std::shared_ptr<PerLayer>> entries_;
};

}  // namespace ripplekv
