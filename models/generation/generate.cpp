#include "models/generation/generate.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>


namespace ripplekv {

namespace {
double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// Timings must include the device's queued work: reading a value back waits for it.
void sync(const at::Tensor& t) { (void)t.cpu(); }
}  // namespace

GenerateResult greedy_generate(const LlamaModel& model, const std::vector<int64_t>& prompt, KVCache& cache,
                               const GenerateOptions& options, const HookRegistry* hooks,
                               const std::function<void(KVCache&)>& after_prefill) {
  if (prompt.empty()) throw std::invalid_argument("generate: the prompt is empty");
  if (options.max_new_tokens < 0) throw std::invalid_argument("generate: max_new_tokens must be >= 0");
  GenerateResult r;
  r.prompt_tokens = static_cast<int64_t>(prompt.size());
  cache.set_headroom(options.max_new_tokens);
  const auto dev = model.device();
  auto tokens = at::tensor(prompt, at::kLong).view({1, -1}).to(dev);

  at::Tensor stop_ids;
  if (options.min_new_tokens > 0 && !options.stop_tokens.empty()) {
    stop_ids = at::tensor(options.stop_tokens, at::kLong).to(dev);
  }
  // Greedy choice; while fewer than min_new_tokens exist, stop tokens are masked out.
  auto choose = [&](at::Tensor logits, int64_t generated) {
    if (stop_ids.defined() && generated < options.min_new_tokens) {
      logits = logits.clone().index_fill_(-1, stop_ids, -std::numeric_limits<float>::infinity());
    }
    return logits.argmax(-1);
  };

  double t0 = now_seconds();
  auto logits = model.prefill(tokens, cache, hooks);
  // Non-finite logits make argmax meaningless: tracked on the device, checked once at the end
  // (no extra host sync per token).
  auto finite = at::isfinite(logits).all();
  auto next = choose(logits, 0);  // [1, 1]
  sync(next);
  r.prefill_seconds = now_seconds() - t0;
  if (after_prefill) {
    t0 = now_seconds();
    after_prefill(cache);
    if (cache.length(0) > 0) sync(cache.keys(0));
    r.compress_seconds = now_seconds() - t0;
  }

  t0 = now_seconds();
  for (int64_t i = 0; i < options.max_new_tokens; ++i) {
    const int64_t id = next.item<int64_t>();
    if (std::find(options.stop_tokens.begin(), options.stop_tokens.end(), id) != options.stop_tokens.end()) {
      r.stopped = true;
      r.stop_token = id;
      break;
    }
    r.tokens.push_back(id);
    if (i + 1 == options.max_new_tokens) break;
    logits = model.decode(next.view({1, 1}), cache, hooks);
    finite = at::logical_and(finite, at::isfinite(logits).all());
    next = choose(logits, static_cast<int64_t>(r.tokens.size()));
  }
  sync(next);
  r.decode_seconds = now_seconds() - t0;
  if (!finite.item<bool>()) {
    throw std::runtime_error(
        "generate: the model produced NaN or Inf logits (the generated tokens would be meaningless); check the "
        "weights and --dtype (float16 overflows where bfloat16 does not)");
  }
  return r;
}

}  // namespace ripplekv
