// A token selector decides WHICH prompt tokens a layer keeps, given that layer's budget.
// It only scores tokens; the shared selection (forced sinks and observation window, top-k
// of the rest, sorted indices) lives once in select_tokens().
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>

namespace ripplekv {

// What a selector needs the model to compute during prefill.
struct SelectorNeeds {
  int64_t window_probs = 0;       // AttnWindow over the last W queries (0: not needed)
  int64_t column_sum_queries = 0; // AttnColumnSum over the last N queries (-1: all; 0: not needed)
};

struct LayerObservation {
  int64_t layer = 0;
  int64_t prompt_len = 0;
  int64_t group_size = 1;    // query heads per KV head
  at::Tensor window_probs;   // [B, Hq, W, T] when requested
  at::Tensor column_sums;    // [B, Hq, T] when requested
  at::Tensor keys, values;   // [B, Hkv, T, D] for selectors that need no attention statistics
};

class TokenSelector {
 public:
  virtual ~TokenSelector() = default;
  virtual std::string name() const = 0;
  virtual SelectorNeeds needs() const { return {}; }
  virtual int64_t sinks() const { return 0; }   // first tokens always kept
  virtual int64_t window() const { return 0; }  // last tokens always kept (observation window)
  virtual bool keeps_all() const { return false; }
  // Importance of each prompt token per KV head, [B, Hkv, T] (higher = keep). Scores of the
  // forced sinks and window are ignored. Selectors with attention needs are called during
  // prefill (keys/values undefined); the others after prefill with keys/values set.
  virtual at::Tensor score(const LayerObservation& obs) const = 0;
};

// Indices [B, Hkv, budget], ascending, of the tokens to keep: the first `sinks`, the last
// `window`, and the highest-scoring others. Requires sinks + window <= budget <= T.
at::Tensor select_tokens(const at::Tensor& scores, int64_t budget, int64_t sinks, int64_t window);

// Combines per-query-head scores [B, Hq, N] into per-KV-head scores [B, Hkv, N]:
// "mean" (kvpress, default), "max" or "sum" over the query heads of each GQA group.
at::Tensor combine_gqa(const at::Tensor& per_query_head, int64_t group_size, const std::string& how);

}  // namespace ripplekv
