#include "models/hooks/hooks.h"

#include <algorithm>

namespace ripplekv {

struct HookHandle::State {
  struct Entry {
    uint64_t id;
    HookSite site;
    int64_t layer;
    int64_t window;
    HookFn fn;
  };
  std::vector<Entry> entries;
  uint64_t next_id = 1;
};

const char* hook_site_name(HookSite site) {
  switch (site) {
    case HookSite::LayerInput: return "layer_input";
    case HookSite::Keys: return "keys";
    case HookSite::Values: return "values";
    case HookSite::AttnWindow: return "attn_window";
    case HookSite::AttnColumnSum: return "attn_column_sum";
    case HookSite::AttnResidual: return "attn_residual";
    case HookSite::LayerOutput: return "layer_output";
    case HookSite::Logits: return "logits";
  }
  return "?";
}

HookHandle::HookHandle(HookHandle&& o) noexcept : registry_(std::move(o.registry_)), id_(o.id_) { o.id_ = 0; }
HookHandle& HookHandle::operator=(HookHandle&& o) noexcept {
  if (this != &o) {
    remove();
    registry_ = std::move(o.registry_);
    id_ = o.id_;
    o.id_ = 0;
  }
  return *this;
}
HookHandle::~HookHandle() { remove(); }

void HookHandle::remove() {
  if (id_ == 0) return;
  if (auto s = registry_.lock()) {
    auto& e = s->entries;
    e.erase(std::remove_if(e.begin(), e.end(), [&](const State::Entry& x) { return x.id == id_; }), e.end());
  }
  id_ = 0;
}

HookRegistry::HookRegistry() : state_(std::make_shared<HookHandle::State>()) {}

HookHandle HookRegistry::add(HookSite site, int64_t layer, HookFn fn) {
  const auto id = state_->next_id++;
  state_->entries.push_back({id, site, layer, 0, std::move(fn)});
  return HookHandle(state_, id);
}

HookHandle HookRegistry::add_window(HookSite site, int64_t layer, int64_t window, HookFn fn) {
  const auto id = state_->next_id++;
  state_->entries.push_back({id, site, layer, window, std::move(fn)});
  return HookHandle(state_, id);
}

static bool matches(const HookHandle::State::Entry& e, HookSite site, int64_t layer) {
  return e.site == site && (e.layer == layer || e.layer == HookRegistry::kAllLayers);
}

bool HookRegistry::wants(HookSite site, int64_t layer) const {
  for (const auto& e : state_->entries) {
    if (matches(e, site, layer)) return true;
  }
  return false;
}

int64_t HookRegistry::window(HookSite site, int64_t layer) const {
  int64_t w = 0;
  for (const auto& e : state_->entries) {
    if (matches(e, site, layer)) w = std::max(w, e.window);
  }
  return w;
}

std::vector<int64_t> HookRegistry::windows(HookSite site, int64_t layer) const {
  std::vector<int64_t> out;
  for (const auto& e : state_->entries) {
    if (matches(e, site, layer) && std::find(out.begin(), out.end(), e.window) == out.end()) out.push_back(e.window);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void HookRegistry::run_window(const HookContext& ctx, int64_t window, at::Tensor& tensor) const {
  std::vector<HookFn> fns;
  for (const auto& e : state_->entries) {
    if (matches(e, ctx.site, ctx.layer) && e.window == window) fns.push_back(e.fn);
  }
  for (auto& fn : fns) fn(ctx, tensor);
}

void HookRegistry::run(const HookContext& ctx, at::Tensor& tensor) const {
  // Copy the callbacks first: a hook may add or remove hooks while it runs.
  std::vector<HookFn> fns;
  for (const auto& e : state_->entries) {
    if (matches(e, ctx.site, ctx.layer)) fns.push_back(e.fn);
  }
  for (auto& fn : fns) fn(ctx, tensor);
}

size_t HookRegistry::size() const { return state_->entries.size(); }

}  // namespace ripplekv
