// Named per-layer hook sites with scoped registration (no globals).
//
// A HookRegistry belongs to whoever runs the model (a profiler, a compressor, a test) and is
// passed to the forward call; nothing is patched into the model. `add` returns a HookHandle
// that removes the hook when it goes out of scope. The model asks `wants(site, layer)` before
// preparing anything for a site, so a forward with no hooks costs one branch per site.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ripplekv {

enum class HookSite {
  LayerInput,   // hidden states entering layer l, [B, T, hidden] (read / modify)
  Keys,         // keys of the new tokens after projection and RoPE, [B, Hkv, T, D], before caching
  Values,       // values of the new tokens after projection, [B, Hkv, T, D], before caching
  AttnWindow,   // softmax attention of the last W queries over all keys, [B, Hq, W, Tk] (read)
  AttnColumnSum,  // that attention summed over the last W queries, [B, Hq, Tk], computed in
                  // query chunks so W may be the whole prompt (H2O) without a T x T matrix (read)
  AttnResidual, // hidden states after the attention residual, before the MLP, [B, T, hidden] (read / modify)
  LayerOutput,  // hidden states leaving layer l, [B, T, hidden] (read / modify)
  Logits,       // final logits [B, T, vocab] (layer = -1) (read / modify)
};
const char* hook_site_name(HookSite site);

enum class Phase { Prefill, Decode };

struct HookContext {
  HookSite site;
  int64_t layer;             // -1 for model-level sites (Logits)
  Phase phase;
  const at::Tensor* positions;  // absolute positions of the new tokens, [T] int64
};

using HookFn = std::function<void(const HookContext&, at::Tensor&)>;

class HookRegistry;

// Removes its hook on destruction (or `remove()`); movable, not copyable. Safe to outlive
// the registry.
class HookHandle {
 public:
  HookHandle() = default;
  HookHandle(HookHandle&&) noexcept;
  HookHandle& operator=(HookHandle&&) noexcept;
  HookHandle(const HookHandle&) = delete;
  HookHandle& operator=(const HookHandle&) = delete;
  ~HookHandle();
  void remove();

  struct State;  // the registry's entries, shared with handles (defined in hooks.cpp)

 private:
  friend class HookRegistry;
  HookHandle(std::weak_ptr<State> registry, uint64_t id) : registry_(std::move(registry)), id_(id) {}
  std::weak_ptr<State> registry_;
  uint64_t id_ = 0;
};

class HookRegistry {
 public:
  static constexpr int64_t kAllLayers = -2;

  HookRegistry();
  // layer: a layer index, kAllLayers, or -1 for model-level sites.
  [[nodiscard]] HookHandle add(HookSite site, int64_t layer, HookFn fn);
  // AttnWindow / AttnColumnSum for the last `window` queries of a prefill (the model passes
  // the largest window any hook asked for at that site and layer, capped at the prompt).
  [[nodiscard]] HookHandle add_window(HookSite site, int64_t layer, int64_t window, HookFn fn);

  bool wants(HookSite site, int64_t layer) const;
  int64_t window(HookSite site, int64_t layer) const;  // largest window requested (0 if none)
  // The distinct windows requested at a window site, ascending. Several observers of one
  // prefill (e.g. every method of a comparison) may ask for different windows; the model
  // computes each window's tensor on its own, so each observer sees exactly what it would see
  // alone.
  std::vector<int64_t> windows(HookSite site, int64_t layer) const;
  void run(const HookContext& ctx, at::Tensor& tensor) const;
  // Runs only the hooks registered with `window` (for window sites).
  void run_window(const HookContext& ctx, int64_t window, at::Tensor& tensor) const;
  size_t size() const;

 private:
  std::shared_ptr<HookHandle::State> state_;
};

}  // namespace ripplekv
