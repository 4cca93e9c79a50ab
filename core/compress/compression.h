// KV-cache compression = a layer budget allocator x a token selector, applied once when the
// prompt's prefill ends (as SnapKV / PyramidKV do); decoding then appends to the smaller cache.
//
//   auto method = CompressionMethod::create(spec, model.config());   // once per run, immutable
//   auto session = method->begin(prompt_len);                        // one per prompt
//   greedy_generate(model, prompt, cache, options, session.get());
//   const CompressionReport& report = session->report();
//
// The session owns the hooks through which it gathers what its policies need during prefill
// (window attention, hidden states); its after-prefill step, finish(), asks the allocator for
// per-layer budgets and the selector for indices, then calls KVCache::keep. Policies never
// touch the cache. The evaluation engine begins several sessions on one registry instead
// (begin(hooks, ...)), so that one prefill serves them all.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/cache/kv_cache.h"
#include "models/generation/generation_session.h"
#include "models/hooks/hooks.h"
#include "models/config/model_config.h"
#include "models/config/model_identity.h"

namespace ripplekv {

class ObservationShare;
class OpenedModel;


struct CompressionSpec {
  std::string selector = "full";
  std::string allocator = "uniform";
  // Average cached prompt tokens per layer, observation window included (KVCache-Factory's
  // max_capacity_prompt); the total over layers is exactly num_layers * budget.
  int64_t budget = 0;
  // Policy options, key -> value (e.g. window=32, kernel=7, pooling=max, beta=20). Each
  // policy reads its own; a key no policy reads is an error listing the valid keys.
  std::map<std::string, std::string> options;
};

struct CompressionReport {
  bool compressed = false;          // false when full cache or prompt <= budget
  int64_t prompt_tokens = 0;
  std::vector<int64_t> kept;        // prompt tokens kept per layer
  std::vector<int64_t> layer_bytes; // KV bytes per layer after compression
  int64_t kept_bytes = 0;
  int64_t full_bytes = 0;           // bytes the uncompressed prompt cache held
  double seconds = 0;
};

class CompressionSession : public GenerationSession {
 public:
  // Allocates budgets, selects tokens and shrinks the cache. Call once, after prefill, with
  // the model that ran it (an allocator that probes the prompt runs it again on a few tokens).
  virtual CompressionReport finish(KVCache& cache, const CausalLM& model) = 0;

  // GenerationSession: the registry this session observes through, and finish() as the
  // after-prefill step (its report kept for report()).
  const HookRegistry* hooks() const override { return hooks_; }
  void after_prefill(const CausalLM& model, KVCache& cache) override { report_ = finish(cache, model); }
  const CompressionReport& report() const { return report_; }

 private:
  friend class CompressionMethod;
  // Set by CompressionMethod (bind_session): the registry the session's hooks are on, and,
  // when the session owns it, the registry itself (declared in this base class, so it
  // outlives the derived session's hook handles). Set once, when the session begins.
  void bind_hooks(const HookRegistry* hooks, std::unique_ptr<HookRegistry> owned = nullptr) {
    owned_hooks_ = std::move(owned);
    hooks_ = hooks;
  }

  std::unique_ptr<HookRegistry> owned_hooks_;
  const HookRegistry* hooks_ = nullptr;
  CompressionReport report_;
};

class CompressionMethod {
 public:
  virtual ~CompressionMethod() = default;
  // Validates names and options (throws std::invalid_argument listing valid choices).
  // `identity` (CausalLM::identity()) lets policies that read per-model files refuse files
  // made for other weights; an empty fingerprint skips that check. Notes the policies make
  // (notes()) are printed once to stderr here.
  static std::unique_ptr<CompressionMethod> create(const CompressionSpec& spec, const ModelConfig& model,
                                                   const ModelIdentity& identity = {});
  // The factory with its context: the opened model (config, tokenizer, weights on demand).
  // A model-bound allocator completes the spec from the model first (ripple without profile=
  // measures and caches its profile; the registry row's prepare step), is checked against the
  // loaded weights' identity, and spec() then names what it used (profile=PATH).
  static std::unique_ptr<CompressionMethod> create(const CompressionSpec& spec, const OpenedModel& model);
  // The same checks of names, keys and values without a model (no budget-versus-layers
  // check; see PolicyOptions::validate_only). Throws std::invalid_argument as create() does.
  static void check(const CompressionSpec& spec);
  // A session for one prompt of `prompt_len` tokens that owns its hooks: pass it to
  // greedy_generate.
  std::unique_ptr<CompressionSession> begin(int64_t prompt_len) const;
  // Registers the hooks this method needs on `hooks` (which must outlive the session), for
  // several sessions observing one prefill. Sessions begun on the same prefill with the same
  // `share` compute each distinct observation once (core/compress/observation_share.h);
  // results are bit-identical either way.
  virtual std::unique_ptr<CompressionSession> begin(HookRegistry& hooks, int64_t prompt_len,
                                                    ObservationShare* share = nullptr) const = 0;
  virtual const CompressionSpec& spec() const = 0;
  // One line, e.g. "snapkv x pyramid, budget 128 (window=32 kernel=7 pooling=max gqa=mean beta=20)".
  virtual std::string describe() const = 0;
  // Every option the selector and allocator read, with the value in force (given, else the
  // default their catalog rows declared when this method was made): what a run folder records,
  // so that a later change of a default neither relabels nor resumes it under the new value.
  virtual const std::map<std::string, std::string>& options_in_force() const = 0;

 protected:
  // For implementations' begin(): records the registry `session` observes through.
  static void bind_session(CompressionSession& session, const HookRegistry& hooks) { session.bind_hooks(&hooks); }

 public:
  // Things the run should record beside its results (see PolicyOptions::notes).
  virtual const std::vector<std::string>& notes() const = 0;
};

// Names the registries know, for --help texts and error messages.
std::vector<std::string> selector_names();
std::vector<std::string> allocator_names();

}  // namespace ripplekv
