// Greedy generation: one prefill, then one decode step per token, stopping at a stop token
// or after max_new_tokens.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "models/cache/kv_cache.h"
#include "models/generation/decode_groups.h"
#include "models/generation/generation_session.h"
#include "models/hooks/hooks.h"
#include "models/model/causal_lm.h"
#include "models/tokenizer/token_id.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv {

struct GenerateOptions {
  int64_t max_new_tokens = 128;
  TokenIds stop_tokens;  // generation ends on one of these (reported, not in `tokens`)
  // Stop tokens cannot be chosen before this many tokens are generated: their logits are
  // masked, so the next-best token is taken (HF generate's min_new_tokens / min_length).
  int64_t min_new_tokens = 0;
};

struct GenerateResult {
  TokenIds tokens;         // generated tokens (stop token excluded)
  bool stopped = false;    // ended on a stop token
  TokenId stop_token = -1; // which one (HF keeps it in the output: e.g. samsum's "\n")
  double prefill_seconds = 0;
  double compress_seconds = 0;
  double decode_seconds = 0;
  int64_t prompt_tokens = 0;
  double decode_tokens_per_second() const {
    return decode_seconds > 0 && tokens.size() > 1 ? static_cast<double>(tokens.size() - 1) / decode_seconds : 0.0;
  }
};

// `session` (optional) observes the prefill and decode steps through its hooks, and its
// after_prefill step runs once between the prefill and the first decode step, with the cache
// holding the whole prompt: where KV-cache compression plugs in, e.g.
//   auto session = method->begin(prompt.size());
//   greedy_generate(model, prompt, cache, options, session.get());
//   session->report();
GenerateResult greedy_generate(const CausalLM& model, const TokenIds& prompt, KVCache& cache,
                               const GenerateOptions& options, GenerationSession* session = nullptr);

// The tokens a benchmark run stops on: the model's end-of-sequence ids, its tokenizer's EOS,
// and for llama2.c models BOS (run.c stops there).
TokenIds default_stop_tokens(const ModelConfig& config, const Tokenizer& tokenizer);

// The decode half of greedy_generate: `prefill_logits` are the prompt's last-position logits
// ([1, 1, V], what CausalLM::prefill returned) and `cache` holds the (possibly compressed)
// prompt. Several caches made from one prefill (an evaluation engine's variants) each continue
// from the same logits; the tokens equal greedy_generate's exactly. prefill_seconds and
// compress_seconds are left for the caller to fill in.
GenerateResult greedy_continue(const CausalLM& model, const at::Tensor& prefill_logits, KVCache& cache,
                               const GenerateOptions& options, const HookRegistry* hooks = nullptr);

// Next-token logits along a forced continuation (teacher forcing), [n, V] float32 for
// n = forced.size(): row 0 is `prefill_logits` (the prompt's last position, [1, 1, V]), row i
// the logits after feeding forced[0..i-1] into `cache` one token at a time (so forced's last
// token is never fed). `cache` holds the (possibly compressed) prompt.
at::Tensor forced_logits(const CausalLM& model, const at::Tensor& prefill_logits, const TokenIds& forced,
                         KVCache& cache);

// The decode-cost figures of `model` for plan_decode_groups: its weight bytes read per step
// and the bytes of one cached slot.
DecodeCostModel decode_cost_model(const CausalLM& model);

// greedy_continue for several caches of one prompt (each holding one sequence, e.g. the
// prompt compressed by several methods), decoded as batches: plan_decode_groups groups them
// by cached length, each group is stacked into one padded cache (KVCache::stack) and
// decoded one step for all its unfinished rows at a time; finished rows leave the batch.
// The caches are consumed (cleared). Result i belongs to caches[i]; its decode_seconds is
// an equal share of its batch's time. Greedy tokens equal greedy_continue's on each cache
// up to the rounding of batched arithmetic (tested equal on the fixtures; see
// tests/models/generation).
std::vector<GenerateResult> greedy_continue_batch(const CausalLM& model, const at::Tensor& prefill_logits,
                                                  std::vector<KVCache>& caches, const GenerateOptions& options,
                                                  const DecodeCostModel& cost);

}  // namespace ripplekv
