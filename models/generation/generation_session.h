// What one generation run attaches to its prompt (greedy_generate): hooks that observe the
// prefill and the decode steps, and a step that runs once between the prefill and the first
// decode step, with the cache holding the whole prompt. KV-cache compression is one such
// session (core/compress/compression.h): it owns its hooks, so nothing stays registered after
// the run, and its after-prefill step compresses the cache.
#pragma once

#include "models/cache/kv_cache.h"
#include "models/hooks/hooks.h"
#include "models/model/causal_lm.h"

namespace ripplekv {

class GenerationSession {
 public:
  virtual ~GenerationSession() = default;
  // Hooks active during prefill and decode; nullptr for none.
  virtual const HookRegistry* hooks() const = 0;
  // Called once, right after the prefill, with the model that ran it.
  virtual void after_prefill(const CausalLM& model, KVCache& cache) = 0;
};

}  // namespace ripplekv
