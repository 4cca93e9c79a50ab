#include "models/generation/generate.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>

#include "models/ops/greedy_argmax.h"

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

TokenIds default_stop_tokens(const ModelConfig& config, const Tokenizer& tokenizer) {
  std::vector<int64_t> stops = config.eos_token_ids;
  if (config.model_type == "llama2c") stops.push_back(tokenizer.bos_id());  // run.c stops on BOS
  if (tokenizer.eos_id() >= 0) stops.push_back(tokenizer.eos_id());
  return stops;
}

namespace {
// Greedy decoding of every row of `cache` (rows of one prompt) from the prompt's last
// logits, one decode step for all unfinished rows at a time; a row that finishes (stop token
// or length) leaves the batch. One host read per step (the chosen tokens).
std::vector<GenerateResult> decode_rows(const CausalLM& model, const at::Tensor& prefill_logits, KVCache& cache,
                                        const GenerateOptions& options, const HookRegistry* hooks) {
  check_options(options);
  const int64_t rows = std::max<int64_t>(cache.batch_size(), 1);
  std::vector<GenerateResult> results(static_cast<std::size_t>(rows));
  for (auto& r : results) r.prompt_tokens = cache.next_position();
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
    return ops::greedy_argmax(logits);
  };
  // Non-finite logits make argmax meaningless: tracked on the device, checked once at the end
  // (no extra host sync per token).
  auto finite = at::isfinite(prefill_logits).all();
  auto next = choose(prefill_logits, 0);  // [1, 1]: the same first token for every row
  if (rows > 1) next = next.expand({rows, 1}).contiguous();
  std::vector<std::size_t> active(static_cast<std::size_t>(rows));
  for (std::size_t j = 0; j < active.size(); ++j) active[j] = j;
  const double t0 = now_seconds();
  for (int64_t i = 0; i < options.max_new_tokens && !active.empty(); ++i) {
    const auto host = next.reshape({-1}).cpu();
    const auto* ids = host.data_ptr<int64_t>();
    std::vector<int64_t> keep;  // batch rows that go on decoding
    std::vector<std::size_t> still;
    for (std::size_t j = 0; j < active.size(); ++j) {
      GenerateResult& r = results[active[j]];
      const int64_t id = ids[j];
      if (std::find(options.stop_tokens.begin(), options.stop_tokens.end(), id) != options.stop_tokens.end()) {
        r.stopped = true;
        r.stop_token = id;
        continue;
      }
      r.tokens.push_back(id);
      if (i + 1 == options.max_new_tokens) continue;
      keep.push_back(static_cast<int64_t>(j));
      still.push_back(active[j]);
    }
    if (still.empty()) break;
    if (still.size() != active.size()) {
      cache.select_rows(keep);
      next = next.index_select(0, at::tensor(keep, at::kLong).to(dev));
    }
    active = std::move(still);
    auto logits = model.decode(next.view({static_cast<int64_t>(active.size()), 1}), cache, hooks);
    finite = at::logical_and(finite, at::isfinite(logits).all());
    next = choose(logits, i + 1).view({-1, 1});
  }
  sync(next);
  const double seconds = now_seconds() - t0;
  if (!finite.item<bool>()) {
    throw std::runtime_error(
        "generate: the model produced NaN or Inf logits (the generated tokens would be meaningless); check the "
        "weights and --dtype (float16 overflows where bfloat16 does not)");
  }
  // Rows of one batch share its time; each gets an equal part, so parts add up to the whole.
  for (auto& r : results) r.decode_seconds = seconds / static_cast<double>(rows);
  return results;
}
}  // namespace

GenerateResult greedy_continue(const CausalLM& model, const at::Tensor& prefill_logits, KVCache& cache,
                               const GenerateOptions& options, const HookRegistry* hooks) {
  if (cache.batch_size() > 1) throw std::invalid_argument("greedy_continue: the cache holds several sequences");
  return decode_rows(model, prefill_logits, cache, options, hooks).front();
}

at::Tensor forced_logits(const CausalLM& model, const at::Tensor& prefill_logits, const TokenIds& forced,
                         KVCache& cache) {
  if (forced.empty()) throw std::invalid_argument("forced_logits: no forced tokens");
  const at::Tensor first = prefill_logits.reshape({-1});
  std::vector<at::Tensor> rows;
  for (std::size_t i = 0; i + 1 < forced.size(); ++i) {
    const auto tok = at::tensor(std::vector<int64_t>{forced[i]}, at::kLong).view({1, 1}).to(model.device());
    rows.push_back(model.decode(tok, cache, nullptr)[0][0]);
  }
  return rows.empty() ? first.unsqueeze(0) : at::cat({first.unsqueeze(0), at::stack(rows)});
}

DecodeCostModel decode_cost_model(const CausalLM& model) {
  DecodeCostModel cost;
  cost.weight_bytes = model.decode_weight_bytes();
  cost.slot_bytes = 2.0 * static_cast<double>(model.config().head_dim) * static_cast<double>(c10::elementSize(model.dtype()));
  if (model.device().is_cuda()) {
    // A CUDA decode step is launch-bound: on the H200 about 1,900 ATen calls took 14-17 ms
    // for SmolLM2 and Qwen2.5-1.5B shapes, 1 row or 16 alike, while their reads took under
    // 1 ms (results/gpu_h200/second_run_2026-12-04). In bytes at its HBM bandwidth (4.8 TB/s)
    // that is about 7e10 per step, which outweighs padding every row of a prompt's variants
    // to its longest layer, so they decode as one batch (on any GPU: the figures are the
    // H200's, and the batch's padded cache is not capped, e.g. 20 variants of a 32k Qwen prompt
    // pad to about 19 GB).
    constexpr double kStepSeconds = 0.014, kBytesPerSecond = 4.8e12;
    cost.step_bytes = kStepSeconds * kBytesPerSecond;
  }
  return cost;
}

std::vector<GenerateResult> greedy_continue_batch(const CausalLM& model, const at::Tensor& prefill_logits,
                                                  std::vector<KVCache>& caches, const GenerateOptions& options,
                                                  const DecodeCostModel& cost) {
  std::vector<std::vector<int64_t>> slots;
  for (const auto& c : caches) {
    if (c.batch_size() > 1) throw std::invalid_argument("greedy_continue_batch: a cache holds several sequences");
    std::vector<int64_t> per_layer;
    for (int64_t l = 0; l < c.num_layers(); ++l) {
      per_layer.push_back(c.length(l) * (c.length(l) > 0 ? c.keys(l).size(1) : 0));
    }
    slots.push_back(std::move(per_layer));
  }
  std::vector<GenerateResult> results(caches.size());
  for (const auto& group : plan_decode_groups(slots, cost)) {
    if (group.size() == 1) {
      results[group[0]] = decode_rows(model, prefill_logits, caches[group[0]], options, nullptr).front();
      caches[group[0]].clear();
      continue;
    }
    std::vector<const KVCache*> rows;
    for (const std::size_t i : group) rows.push_back(&caches[i]);
    KVCache batch = KVCache::stack(rows);
    for (const std::size_t i : group) caches[i].clear();  // the batch holds their tokens now
    auto out = decode_rows(model, prefill_logits, batch, options, nullptr);
    for (std::size_t j = 0; j < group.size(); ++j) results[group[j]] = std::move(out[j]);
  }
  return results;
}

GenerateResult greedy_generate(const CausalLM& model, const TokenIds& prompt, KVCache& cache,
                               const GenerateOptions& options, GenerationSession* session) {
  const HookRegistry* hooks = session != nullptr ? session->hooks() : nullptr;
  if (prompt.empty()) throw std::invalid_argument("generate: the prompt is empty");
  check_options(options);
  cache.set_headroom(options.max_new_tokens);
  auto tokens = at::tensor(prompt, at::kLong).view({1, -1}).to(model.device());

  double t0 = now_seconds();
  const auto logits = model.prefill(tokens, cache, hooks);
  sync(logits);
  const double prefill_seconds = now_seconds() - t0;
  double compress_seconds = 0;
  if (session != nullptr) {
    t0 = now_seconds();
    session->after_prefill(model, cache);
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
