#include "models/cache/kv_cache.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ripplekv {

KVCache::KVCache(int64_t num_layers) : layers_(static_cast<size_t>(num_layers)) {
  if (num_layers <= 0) throw std::invalid_argument("KVCache: number of layers must be positive");
}

const KVCache::Layer& KVCache::at(int64_t layer) const {
  if (layer < 0 || layer >= num_layers()) {
    throw std::out_of_range(fmt::format("KVCache: layer {} out of range [0, {})", layer, num_layers()));
  }
  return layers_[static_cast<size_t>(layer)];
}
KVCache::Layer& KVCache::at(int64_t layer) {
  return const_cast<Layer&>(static_cast<const KVCache*>(this)->at(layer));
}

void KVCache::grow(Layer& l, int64_t needed, const at::Tensor& like_k, const at::Tensor& like_v) {
  const int64_t cap = l.k.defined() ? l.k.size(2) : 0;
  if (needed <= cap) return;
  const int64_t new_cap = std::max({needed + headroom_, cap + cap / 2, int64_t{16}});
  const auto b = like_k.size(0), h = like_k.size(1);
  auto k = at::empty({b, h, new_cap, like_k.size(3)}, like_k.options());
  auto v = at::empty({b, h, new_cap, like_v.size(3)}, like_v.options());
  auto pos = at::empty({b, h, new_cap}, like_k.options().dtype(at::kLong));
  if (l.len > 0) {
    k.narrow(2, 0, l.len).copy_(l.k.narrow(2, 0, l.len));
    v.narrow(2, 0, l.len).copy_(l.v.narrow(2, 0, l.len));
    pos.narrow(2, 0, l.len).copy_(l.pos.narrow(2, 0, l.len));
  }
  l.k = k;
  l.v = v;
  l.pos = pos;
}

void KVCache::append(int64_t layer, const at::Tensor& k, const at::Tensor& v, int64_t start_pos) {
  auto& l = at(layer);
  if (k.dim() != 4 || v.dim() != 4 || k.size(2) != v.size(2) || k.size(0) != v.size(0) || k.size(1) != v.size(1)) {
    throw std::invalid_argument("KVCache::append: expected k, v [B, Hkv, T, D]");
  }
  if (start_pos < l.next_pos) {
    throw std::invalid_argument(fmt::format("KVCache::append: layer {}: position {} is before the next position {}",
                                            layer, start_pos, l.next_pos));
  }
  const at::Tensor* kk = &k;
  const at::Tensor* vv = &v;
  at::Tensor k_rep, v_rep;
  if (l.len > 0 && l.k.size(1) != k.size(1) && l.k.size(1) % k.size(1) == 0) {
    // A layer compressed per query head holds Hq heads: new tokens are stored for each.
    const int64_t rep = l.k.size(1) / k.size(1);
    k_rep = k.repeat_interleave(rep, 1);
    v_rep = v.repeat_interleave(rep, 1);
    kk = &k_rep;
    vv = &v_rep;
  }
  if (l.len > 0 && (l.k.size(0) != kk->size(0) || l.k.size(1) != kk->size(1) || l.k.size(3) != kk->size(3) ||
                    l.k.scalar_type() != kk->scalar_type())) {
    throw std::invalid_argument(fmt::format("KVCache::append: layer {} shape/dtype differs from cached tokens", layer));
  }
  const int64_t t = k.size(2);
  grow(l, l.len + t, *kk, *vv);
  l.k.narrow(2, l.len, t).copy_(*kk);
  l.v.narrow(2, l.len, t).copy_(*vv);
  auto positions = at::arange(start_pos, start_pos + t, l.pos.options());
  l.pos.narrow(2, l.len, t).copy_(positions.view({1, 1, t}).expand({kk->size(0), kk->size(1), t}));
  if (start_pos != l.next_pos) l.prefix = false;
  l.len += t;
  l.next_pos = start_pos + t;
}

void KVCache::keep(int64_t layer, const at::Tensor& indices) {
  auto& l = at(layer);
  if (l.len == 0) throw std::logic_error(fmt::format("KVCache::keep: layer {} is empty", layer));
  at::Tensor idx = indices.to(l.k.device(), at::kLong);
  if (idx.dim() == 3 && idx.size(1) != l.k.size(1) && idx.size(1) % l.k.size(1) == 0) {
    // Per-query-head selection (the original SnapKV): the layer switches to holding each
    // query head's own tokens; query head j reads KV head j / group, as repeat_kv does.
    const int64_t rep = idx.size(1) / l.k.size(1);
    l.k = l.k.narrow(2, 0, l.len).repeat_interleave(rep, 1);
    l.v = l.v.narrow(2, 0, l.len).repeat_interleave(rep, 1);
    l.pos = l.pos.narrow(2, 0, l.len).repeat_interleave(rep, 1);
  }
  const auto b = l.k.size(0), h = l.k.size(1);
  if (idx.dim() == 1) idx = idx.view({1, 1, -1}).expand({b, h, idx.size(0)});
  if (idx.dim() != 3 || idx.size(0) != b || idx.size(1) != h) {
    throw std::invalid_argument(fmt::format(
        "KVCache::keep: layer {}: indices must be [n] or [{}, {}, n]", layer, b, h));
  }
  const int64_t n = idx.size(2);
  if (n > 0) {
    const auto lo = idx.min().item<int64_t>(), hi = idx.max().item<int64_t>();
    if (lo < 0 || hi >= l.len) {
      throw std::out_of_range(fmt::format("KVCache::keep: layer {}: index out of [0, {})", layer, l.len));
    }
  }
  idx = std::get<0>(idx.sort(-1));  // keep original order: positions stay ascending
  const int64_t cap = n + headroom_;
  auto k = at::empty({b, h, std::max<int64_t>(cap, 1), l.k.size(3)}, l.k.options());
  auto v = at::empty({b, h, std::max<int64_t>(cap, 1), l.v.size(3)}, l.v.options());
  auto pos = at::empty({b, h, std::max<int64_t>(cap, 1)}, l.pos.options());
  auto idx4k = idx.unsqueeze(-1).expand({b, h, n, l.k.size(3)});
  auto idx4v = idx.unsqueeze(-1).expand({b, h, n, l.v.size(3)});
  k.narrow(2, 0, n).copy_(l.k.narrow(2, 0, l.len).gather(2, idx4k));
  v.narrow(2, 0, n).copy_(l.v.narrow(2, 0, l.len).gather(2, idx4v));
  pos.narrow(2, 0, n).copy_(l.pos.narrow(2, 0, l.len).gather(2, idx));
  l.k = k;
  l.v = v;
  l.pos = pos;
  if (n != l.len) l.prefix = false;
  l.len = n;
}

int64_t KVCache::next_position() const {
  int64_t p = 0;
  for (const auto& l : layers_) p = std::max(p, l.next_pos);
  return p;
}

at::Tensor KVCache::keys(int64_t layer) const {
  const auto& l = at(layer);
  return l.len ? l.k.narrow(2, 0, l.len) : at::Tensor();
}
at::Tensor KVCache::values(int64_t layer) const {
  const auto& l = at(layer);
  return l.len ? l.v.narrow(2, 0, l.len) : at::Tensor();
}
at::Tensor KVCache::positions(int64_t layer) const {
  const auto& l = at(layer);
  return l.len ? l.pos.narrow(2, 0, l.len) : at::Tensor();
}

int64_t KVCache::bytes(int64_t layer) const {
  const auto& l = at(layer);
  if (l.len == 0) return 0;
  const int64_t per_token = l.k.size(0) * l.k.size(1) * (l.k.size(3) + l.v.size(3)) * l.k.element_size();
  return per_token * l.len;
}

int64_t KVCache::total_bytes() const {
  int64_t total = 0;
  for (int64_t i = 0; i < num_layers(); ++i) total += bytes(i);
  return total;
}

int64_t KVCache::capacity_bytes() const {
  int64_t total = 0;
  for (const auto& l : layers_) {
    if (l.k.defined()) total += l.k.nbytes() + l.v.nbytes();
  }
  return total;
}

void KVCache::clear() {
  for (auto& l : layers_) l = Layer{};
}

KVCache KVCache::clone() const {
  KVCache copy(num_layers());
  copy.headroom_ = headroom_;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const Layer& from = layers_[i];
    Layer& to = copy.layers_[i];
    to = from;
    if (from.k.defined()) to.k = from.k.clone();
    if (from.v.defined()) to.v = from.v.clone();
    if (from.pos.defined()) to.pos = from.pos.clone();
  }
  return copy;
}

}  // namespace ripplekv
