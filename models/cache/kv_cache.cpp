#include "models/cache/kv_cache.h"

#include <ATen/record_function.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
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

namespace {

// Whether src [B, H, 1, D] can be copied row by row into dst [B, H, capacity, D]: both on the
// CPU, one dtype, each row of D contiguous.
bool token_rows_copyable(const at::Tensor& src, const at::Tensor& dst) {
  return src.is_cpu() && dst.is_cpu() && src.scalar_type() == dst.scalar_type() && src.dim() == 4 &&
         dst.dim() == 4 && src.size(2) == 1 && src.size(0) == dst.size(0) && src.size(1) == dst.size(1) &&
         src.size(3) == dst.size(3) && (src.size(3) <= 1 || (src.stride(3) == 1 && dst.stride(3) == 1));
}

// dst[b, h, slot, :] = src[b, h, 0, :] for every row.
void copy_token_rows(const at::Tensor& src, at::Tensor& dst, int64_t slot) {
  const int64_t es = static_cast<int64_t>(src.element_size());
  const auto* in = static_cast<const char*>(src.data_ptr());
  auto* out = static_cast<char*>(dst.data_ptr());
  const auto bytes = static_cast<std::size_t>(src.size(3) * es);
  for (int64_t b = 0; b < src.size(0); ++b) {
    for (int64_t h = 0; h < src.size(1); ++h) {
      std::memcpy(out + (b * dst.stride(0) + h * dst.stride(1) + slot * dst.stride(2)) * es,
                  in + (b * src.stride(0) + h * src.stride(1)) * es, bytes);
    }
  }
}

}  // namespace

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
  if (l.valid.defined()) {
    // Slots past the padding are real: the new capacity is valid in every row.
    auto valid = at::ones({b, 1, new_cap}, l.valid.options());
    if (l.len > 0) valid.narrow(2, 0, l.len).copy_(l.valid.narrow(2, 0, l.len));
    l.valid = valid;
  }
  l.k = k;
  l.v = v;
  l.pos = pos;
}

void KVCache::reserve(int64_t layer, int64_t tokens, const at::Tensor& like) {
  auto& l = at(layer);
  if (l.len > 0 || tokens <= 0) return;
  if (like.dim() != 4) throw std::invalid_argument("KVCache::reserve: expected a [B, Hkv, T, D] tensor to shape it");
  grow(l, tokens, like, like);
}

void KVCache::append(int64_t layer, const at::Tensor& k, const at::Tensor& v, int64_t start_pos) {
  RECORD_FUNCTION("ripplekv::kv_cache_append", c10::ArrayRef<const c10::IValue>{});
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
  if (t == 1 && token_rows_copyable(*kk, l.k) && token_rows_copyable(*vv, l.v) && l.pos.is_cpu()) {
    // A decode step: one slot per row, written in place (the general path's 8 ATen calls cost
    // about 15 us a layer, 4% of a SmolLM2 step).
    copy_token_rows(*kk, l.k, l.len);
    copy_token_rows(*vv, l.v, l.len);
    auto* pos = l.pos.data_ptr<int64_t>();
    for (int64_t b = 0; b < l.pos.size(0); ++b) {
      for (int64_t h = 0; h < l.pos.size(1); ++h) pos[b * l.pos.stride(0) + h * l.pos.stride(1) + l.len * l.pos.stride(2)] = start_pos;
    }
  } else {
    l.k.narrow(2, l.len, t).copy_(*kk);
    l.v.narrow(2, l.len, t).copy_(*vv);
    auto positions = at::arange(start_pos, start_pos + t, l.pos.options());
    l.pos.narrow(2, l.len, t).copy_(positions.view({1, 1, t}).expand({kk->size(0), kk->size(1), t}));
  }
  if (start_pos != l.next_pos) l.prefix = false;
  l.len += t;
  l.next_pos = start_pos + t;
}

void KVCache::keep(int64_t layer, const at::Tensor& indices) {
  auto& l = at(layer);
  if (l.len == 0) throw std::logic_error(fmt::format("KVCache::keep: layer {} is empty", layer));
  if (!l.pad.empty()) {
    throw std::logic_error(fmt::format("KVCache::keep: layer {} holds padded batch rows; compress each sequence's "
                                       "cache before stacking",
                                       layer));
  }
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

void KVCache::truncate(int64_t layer, int64_t length) {
  auto& l = at(layer);
  if (!l.prefix || !l.pad.empty()) {
    throw std::logic_error(fmt::format("KVCache::truncate: layer {} has evicted tokens or padded rows", layer));
  }
  if (length < 0 || length > l.len) {
    throw std::out_of_range(fmt::format("KVCache::truncate: layer {}: length {} outside [0, {}]", layer, length, l.len));
  }
  l.len = length;
  l.next_pos = length;
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
  const int64_t per_row_token = l.k.size(1) * (l.k.size(3) + l.v.size(3)) * l.k.element_size();
  int64_t tokens = l.k.size(0) * l.len;
  for (const int64_t p : l.pad) tokens -= p;  // padding holds no tokens
  return per_row_token * tokens;
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

int64_t KVCache::batch_size() const {
  for (const auto& l : layers_) {
    if (l.k.defined()) return l.k.size(0);
  }
  return 0;
}

at::Tensor KVCache::key_mask(int64_t layer) const {
  const auto& l = at(layer);
  return l.valid.defined() && l.len > 0 ? l.valid.narrow(2, 0, l.len) : at::Tensor();
}

int64_t KVCache::row_length(int64_t layer, int64_t row) const {
  const auto& l = at(layer);
  if (l.len == 0) return 0;
  if (row < 0 || row >= l.k.size(0)) {
    throw std::out_of_range(fmt::format("KVCache: row {} out of range [0, {})", row, l.k.size(0)));
  }
  return l.pad.empty() ? l.len : l.len - l.pad[static_cast<size_t>(row)];
}

KVCache KVCache::stack(const std::vector<const KVCache*>& rows) {
  if (rows.empty()) throw std::invalid_argument("KVCache::stack: no rows");
  const int64_t n_layers = rows[0]->num_layers();
  const auto b = static_cast<int64_t>(rows.size());
  KVCache out(n_layers);
  int64_t next = -1;
  for (const KVCache* r : rows) {
    if (r->num_layers() != n_layers) throw std::invalid_argument("KVCache::stack: rows differ in number of layers");
    if (r->batch_size() > 1) throw std::invalid_argument("KVCache::stack: every row must hold one sequence");
    if (next >= 0 && r->next_position() != next) {
      throw std::invalid_argument("KVCache::stack: rows must continue from the same position (one prompt)");
    }
    next = r->next_position();
    out.headroom_ = std::max(out.headroom_, r->headroom_);
  }
  for (int64_t i = 0; i < n_layers; ++i) {
    const Layer* like = nullptr;
    int64_t heads = 0, len = 0;
    bool prefix = true;
    for (const KVCache* r : rows) {
      const Layer& l = r->at(i);
      prefix = prefix && l.prefix;
      if (l.len == 0) continue;
      if (like && (l.k.size(3) != like->k.size(3) || l.v.size(3) != like->v.size(3) ||
                   l.k.scalar_type() != like->k.scalar_type())) {
        throw std::invalid_argument(fmt::format("KVCache::stack: layer {}: rows differ in head size or dtype", i));
      }
      like = &l;
      heads = std::max(heads, l.k.size(1));
      len = std::max(len, l.len);
    }
    Layer& to = out.layers_[static_cast<size_t>(i)];
    to.next_pos = 0;
    for (const KVCache* r : rows) to.next_pos = std::max(to.next_pos, r->at(i).next_pos);
    if (!like) continue;
    const int64_t cap = len + out.headroom_;
    to.k = at::zeros({b, heads, cap, like->k.size(3)}, like->k.options());
    to.v = at::zeros({b, heads, cap, like->v.size(3)}, like->v.options());
    to.pos = at::full({b, heads, cap}, std::numeric_limits<int64_t>::max(), like->pos.options());
    to.pad.assign(static_cast<size_t>(b), 0);
    for (int64_t r = 0; r < b; ++r) {
      const Layer& from = rows[static_cast<size_t>(r)]->at(i);
      const int64_t pad = len - from.len;
      to.pad[static_cast<size_t>(r)] = pad;
      if (from.len == 0) continue;
      const int64_t h = from.k.size(1);
      if (heads % h != 0) {
        throw std::invalid_argument(fmt::format("KVCache::stack: layer {}: {} heads do not divide {}", i, h, heads));
      }
      auto expand = [&](const at::Tensor& t) {
        auto live = t.narrow(2, 0, from.len);
        return h == heads ? live : live.repeat_interleave(heads / h, 1);
      };
      to.k.select(0, r).narrow(1, pad, from.len).copy_(expand(from.k).squeeze(0));
      to.v.select(0, r).narrow(1, pad, from.len).copy_(expand(from.v).squeeze(0));
      to.pos.select(0, r).narrow(1, pad, from.len).copy_(expand(from.pos).squeeze(0));
    }
    to.len = len;
    const bool padded = std::any_of(to.pad.begin(), to.pad.end(), [](int64_t p) { return p > 0; });
    to.prefix = prefix && !padded;
    if (!padded) {
      to.pad.clear();
      continue;
    }
    auto slot = at::arange(cap, like->pos.options()).view({1, 1, cap});
    auto pads = at::tensor(to.pad, like->pos.options()).view({b, 1, 1});
    to.valid = slot >= pads;
  }
  return out;
}

void KVCache::select_rows(const std::vector<int64_t>& rows) {
  const int64_t b = batch_size();
  for (std::size_t j = 0; j < rows.size(); ++j) {
    if (rows[j] < 0 || rows[j] >= b || (j > 0 && rows[j] <= rows[j - 1])) {
      throw std::invalid_argument(fmt::format("KVCache::select_rows: rows must be ascending indices in [0, {})", b));
    }
  }
  if (static_cast<int64_t>(rows.size()) == b) return;
  if (rows.empty()) {
    clear();
    return;
  }
  for (auto& l : layers_) {
    if (!l.k.defined()) continue;
    auto idx = at::tensor(rows, at::TensorOptions().dtype(at::kLong)).to(l.k.device());
    l.k = l.k.index_select(0, idx);
    l.v = l.v.index_select(0, idx);
    l.pos = l.pos.index_select(0, idx);
    if (l.pad.empty()) continue;
    std::vector<int64_t> pad;
    for (const int64_t r : rows) pad.push_back(l.pad[static_cast<size_t>(r)]);
    l.valid = l.valid.index_select(0, idx);
    // Slots that are padding in every remaining row are dropped (views, no copy).
    const int64_t common = *std::min_element(pad.begin(), pad.end());
    if (common > 0) {
      const int64_t cap = l.k.size(2) - common;
      l.k = l.k.narrow(2, common, cap);
      l.v = l.v.narrow(2, common, cap);
      l.pos = l.pos.narrow(2, common, cap);
      l.valid = l.valid.narrow(2, common, cap);
      l.len -= common;
      for (auto& p : pad) p -= common;
    }
    if (std::all_of(pad.begin(), pad.end(), [](int64_t p) { return p == 0; })) {
      l.pad.clear();
      l.valid = at::Tensor();
    } else {
      l.pad = std::move(pad);
    }
  }
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
    if (from.valid.defined()) to.valid = from.valid.clone();
  }
  return copy;
}

}  // namespace ripplekv
