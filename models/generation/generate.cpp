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

void check_options(const GenerateOptions& options) {
  if (options.max_new_tokens < 0) throw std::invalid_argument("generate: max_new_tokens must be >= 0");
}
}  // namespace

std::vector<int64_t> default_stop_tokens(const ModelConfig& config, const Tokenizer& tokenizer) {
  std::vector<int64_t> stops = config.eos_token_ids;
  if (config.model_type == "llama2c") stops.push_back(tokenizer.bos_id());  // run.c stops on BOS
  if (tokenizer.eos_id() >= 0) stops.push_back(tokenizer.eos_id());
  return stops;
}

GenerateResult greedy_continue(const LlamaModel& model, const at::Tensor& prefill_logits, KVCache& cache,
                               const GenerateOptions& options, const HookRegistry* hooks) {
  check_options(options);
  GenerateResult r;
  r.prompt_tokens = cache.next_position();
  const auto dev = model.device();
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
  // Non-finite logits make argmax meaningless: tracked on the device, checked once at the end
  // (no extra host sync per token).
  auto finite = at::isfinite(prefill_logits).all();
  auto next = choose(prefill_logits, 0);  // [1, 1]
  const double t0 = now_seconds();
  for (int64_t i = 0; i < options.max_new_tokens; ++i) {
    const int64_t id = next.item<int64_t>();
    if (std::find(options.stop_tokens.begin(), options.stop_tokens.end(), id) != options.stop_tokens.end()) {
      r.stopped = true;
      r.stop_token = id;
      break;
    }
    r.tokens.push_back(id);
    if (i + 1 == options.max_new_tokens) break;
    auto logits = model.decode(next.view({1, 1}), cache, hooks);
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

GenerateResult greedy_generate(const LlamaModel& model, const std::vector<int64_t>& prompt, KVCache& cache,
                               const GenerateOptions& options, const HookRegistry* hooks,
                               const std::function<void(KVCache&)>& after_prefill) {
  if (prompt.empty()) throw std::invalid_argument("generate: the prompt is empty");
  check_options(options);
  cache.set_headroom(options.max_new_tokens);
  auto tokens = at::tensor(prompt, at::kLong).view({1, -1}).to(model.device());

  double t0 = now_seconds();
  const auto logits = model.prefill(tokens, cache, hooks);
  sync(logits);
  const double prefill_seconds = now_seconds() - t0;
  double compress_seconds = 0;
  if (after_prefill) {
    t0 = now_seconds();
    after_prefill(cache);
    if (cache.length(0) > 0) sync(cache.keys(0));
    compress_seconds = now_seconds() - t0;
  }
  GenerateResult r = greedy_continue(model, logits, cache, options, hooks);
  r.prompt_tokens = static_cast<int64_t>(prompt.size());
  r.prefill_seconds = prefill_seconds;
  r.compress_seconds = compress_seconds;
  return r;
}

}  // namespace ripplekv
