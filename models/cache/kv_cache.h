// The KV cache: per layer, post-RoPE keys and values at KV-head granularity
// ([batch, kv_heads, tokens, head_dim], never repeated to query heads) and each cached
// token's original position ([batch, kv_heads, tokens]). Layers may hold different lengths
// and, after compression, each KV head may hold different tokens.
//
// This is the only object whose contents change: `append` (prefill/decode), `keep`
// (compression) and `truncate` (undoing a replay) are its mutators; everybody else reads views
// or returns indices.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <vector>


namespace ripplekv {

class KVCache {
 public:
  explicit KVCache(int64_t num_layers);

  int64_t num_layers() const { return static_cast<int64_t>(layers_.size()); }
  int64_t length(int64_t layer) const { return at(layer).len; }
  bool empty(int64_t layer) const { return at(layer).len == 0; }

  // Tokens to keep room for beyond what is written (e.g. the tokens still to decode), so that
  // decoding appends without reallocating. A hint; appends beyond it still work.
  void set_headroom(int64_t tokens) { headroom_ = tokens; }

  // Allocates storage for `tokens` tokens (plus the headroom) in an empty layer, shaped and
  // typed like `like` ([B, Hkv, any, D]), so that appends up to that length do not allocate.
  // A model reserves every layer before a prompt's first layer runs: allocated while the
  // layers run, each layer's storage would land between one layer's freed transients and
  // split the blocks the next layer's transients could reuse. No-op for a non-empty layer.
  void reserve(int64_t layer, int64_t tokens, const at::Tensor& like);

  // Writes k, v [B, Hkv, T, D] of the tokens at positions start_pos .. start_pos + T - 1
  // after the layer's cached tokens.
  void append(int64_t layer, const at::Tensor& k, const at::Tensor& v, int64_t start_pos);

  // Position the next token will have: one past the last position ever appended to any layer
  // (compression drops tokens but never renumbers them).
  int64_t next_position() const;
  // True while the layer holds exactly positions 0..length-1 in order (nothing evicted).
  bool is_prefix(int64_t layer) const { return at(layer).prefix; }

  // Keeps only the cached tokens at `indices` ([B, Hkv, n] or [n] for all heads), in
  // ascending position order, and releases the rest of the layer's memory. Indices for
  // [B, Hq, n] (a multiple of the cached heads) switch the layer to per-query-head storage
  // (the original SnapKV's layout; group_size x the memory), and later appends are stored
  // for every query head.
  void keep(int64_t layer, const at::Tensor& indices);
  // Drops the newest tokens of a layer that holds positions 0..length()-1 (nothing evicted, no
  // padded rows), so that it holds positions 0..length-1 and the next append may start at
  // `length`; the buffers stay (e.g. tokens replayed on top of a cached prompt, undone).
  void truncate(int64_t layer, int64_t length);

  // Views of the cached tokens (valid until the next mutation of this layer).
  at::Tensor keys(int64_t layer) const;
  at::Tensor values(int64_t layer) const;
  at::Tensor positions(int64_t layer) const;

  // Bytes of keys + values held for the cached tokens of a layer / all layers (the figure a
  // compression method is judged by; spare capacity is reported separately).
  int64_t bytes(int64_t layer) const;
  int64_t total_bytes() const;
  int64_t capacity_bytes() const;

  void clear();

  // An independent copy (the same buffers, capacity and headroom, copied), e.g. the full cache
  // of one prefill handed to each of several compression methods.
  KVCache clone() const;

  // --- Batches of sequences whose caches differ in length (batched decoding of variants) ---
  //
  // Stacks caches of one sequence each (batch 1, e.g. one prompt compressed by several
  // methods) into one cache whose row r is rows[r]. Per layer, a shorter row is padded on the
  // left, so every row's newest token sits in the same slot and an append writes one column
  // for all rows. Padding slots hold zeros, position INT64_MAX (no position mask lets a query
  // see them) and are false in key_mask. A layer holding per-query-head tokens in one row is
  // stored per query head for every row (the KV heads repeated, as attention reads them).
  // The rows must share their next position (one prompt). Capacity keeps the largest headroom.
  static KVCache stack(const std::vector<const KVCache*>& rows);
  // Keeps the batch rows `rows` (ascending indices), e.g. when some sequences have finished,
  // and drops slots that are padding in every remaining row.
  void select_rows(const std::vector<int64_t>& rows);
  int64_t batch_size() const;
  // [B, 1, length] bool, true where a slot holds a token; undefined when no row is padded.
  at::Tensor key_mask(int64_t layer) const;
  // Tokens row `row` holds in `layer` (length() minus the row's padding).
  int64_t row_length(int64_t layer, int64_t row) const;

 private:
  struct Layer {
    at::Tensor k, v, pos;  // capacity-sized buffers
    int64_t len = 0;
    int64_t next_pos = 0;
    bool prefix = true;
    std::vector<int64_t> pad;  // per batch row: leading padding slots (empty: no padding)
    at::Tensor valid;          // [B, 1, capacity] bool, defined iff `pad` is non-empty
  };
  const Layer& at(int64_t layer) const;
  Layer& at(int64_t layer);
  void grow(Layer& l, int64_t needed, const at::Tensor& like_k, const at::Tensor& like_v);

  std::vector<Layer> layers_;
  int64_t headroom_ = 0;
};

}  // namespace ripplekv
