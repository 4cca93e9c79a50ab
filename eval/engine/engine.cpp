#include "eval/engine/engine.h"

#include "core/ripple/kl_divergence.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <stdexcept>

#include "core/compress/observation_share.h"
#include "eval/engine/heap_release.h"
#include "eval/kept_tokens_log.h"
#include "eval/progress_bar.h"
#include "models/generation/generate.h"
#include "models/io/fnv1a.h"

namespace ripplekv::eval {
namespace fs = std::filesystem;

namespace {
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The samples of `task` that `shard` owns, and how many of them `finished(id)` holds.
template <typename Finished>
std::pair<std::size_t, std::size_t> owned_and_done(const Task& task, const Shard& shard, Finished finished) {
  std::size_t mine = 0, done = 0;
  for (std::size_t k = 0; k < task.size(); ++k) {
    if (!shard.owns(k)) continue;
    ++mine;
    done += finished(task.sample_id(k)) ? 1 : 0;
  }
  return {mine, done};
}

// Whether `has` lacks a sample `shard` owns: only then are the folder's other files read.
template <typename Has>
bool lacks_owned(const Task& task, const Shard& shard, Has has) {
  const auto [mine, done] = owned_and_done(task, shard, has);
  return done < mine;
}

std::string prompt_record(const std::string& id, const TaskPrompt& p) {
  nlohmann::ordered_json j;
  j["_id"] = id;
  j["prompt_tokens"] = p.ids.size();
  j["original_tokens"] = p.original_tokens;
  j["truncated"] = p.truncated;
  j["prompt"] = p.text;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
// A forced continuation: the full cache's next-token distributions along it, then each
// variant's (its own copy of the full cache, compressed), compared position by position.
void compare_forced(const CausalLM& model, const Task& task, std::size_t k, const at::Tensor& logits,
                    const TokenIds& forced, KVCache& full, std::vector<std::unique_ptr<CompressionSession>>& sessions,
                    const std::vector<std::size_t>& pending, const std::vector<EngineVariant>& variants,
                    std::vector<std::unique_ptr<PredictionFile>>& files, const EngineOptions& options,
                    EngineTaskStats& stats, ProgressBar::SampleStats& sample_stats) {
  const auto& id = task.sample_id(k);
  const auto n = full.length(0);
  auto td = std::chrono::steady_clock::now();
  KVCache reference = full.clone();
  const at::Tensor full_logits = forced_logits(model, logits, forced, reference);
  reference.clear();
  if (!at::isfinite(full_logits).all().item<bool>()) {
    throw std::runtime_error(fmt::format("{}: sample {}: the model produced NaN or Inf logits with the full cache (KL "
                                         "would be meaningless); check the weights and --dtype",
                                         task.name(), id));
  }
  const auto full_top = full_logits.argmax(-1);
  double seconds = seconds_since(td);
  for (std::size_t j = 0; j < pending.size(); ++j) {
    const std::size_t i = pending[j];
    KVCache cache = j + 1 == pending.size() ? std::move(full) : full.clone();
    const auto tc = std::chrono::steady_clock::now();
    const CompressionReport report = sessions[j]->finish(cache, model);
    stats.compress_seconds += seconds_since(tc);
    td = std::chrono::steady_clock::now();
    const at::Tensor variant_logits = forced_logits(model, logits, forced, cache);
    cache.clear();
    if (!at::isfinite(variant_logits).all().item<bool>()) {
      throw std::runtime_error(fmt::format("{}: sample {}: variant {} produced NaN or Inf logits (KL would be "
                                           "meaningless); check the method's options and --dtype",
                                           task.name(), id, variants[i].label));
    }
    const auto kl = kl_divergence(full_logits, variant_logits, KlDirection::Forward).to(at::kDouble).contiguous().cpu();
    ForcedComparison c;
    c.kl.assign(kl.data_ptr<double>(), kl.data_ptr<double>() + kl.numel());
    c.top1_agree = (variant_logits.argmax(-1) == full_top).sum().item<int64_t>();
    c.kv_fraction = report.full_bytes ? static_cast<double>(report.kept_bytes) / static_cast<double>(report.full_bytes) : 1.0;
    c.compressed = report.compressed;
    seconds += seconds_since(td);
    append_kept_tokens(variants[i].out_dir, task.name(), options.shard, id, n, report.compressed, report.kept);
    files[i]->append_line(id, task.forced_record(k, c));
    ++stats.decodes;
  }
  stats.decode_seconds += seconds;
  sample_stats.generated_tokens += static_cast<int64_t>(pending.size() * (forced.size() - 1));
  sample_stats.decode_seconds += seconds;
}

}  // namespace

std::string variant_folder(const std::string& text, const CompressionSpec& spec) {
  std::string name;
  for (char c : text) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '=' || c == '@' || c == '_';
    name += ok ? c : (c == ':' ? '+' : '_');
  }
  // A file name holds at most 255 bytes: a long method text (a sweep's calibration paths) is
  // cut and told apart by a hash of the whole text.
  if (name.size() > 240) {
    name = fmt::format("{}-{:016x}", name.substr(0, 200), fnv1a64(text.data(), text.size(), kFnvOffsetBasis));
  }
  if (spec.selector != "full") name += fmt::format("_b{}", spec.budget);
  return name;
}

std::size_t pending_samples(const Task& task, const std::vector<EngineVariant>& variants, const EngineOptions& options) {
  // Each variant's ids, read as run_task's files would find them, with the lines it copies.
  std::vector<std::set<std::string>> finished;
  for (const auto& v : variants) {
    check_shard_count(v.out_dir, task.name(), options.shard);
    const auto ids = read_prediction_ids(prediction_path(v.out_dir, task.name(), options.shard), task.record_key());
    finished.emplace_back(ids ? std::set<std::string>(ids->begin(), ids->end()) : std::set<std::string>{});
    auto& have = finished.back();
    if (!lacks_owned(task, options.shard, [&](const std::string& id) { return have.count(id) != 0; })) continue;
    for (const auto& [id, line] : predictions_in_other_files(v.out_dir, task.name(), options.shard, task.record_key())) {
      have.insert(id);
    }
  }
  const auto [mine, done] = owned_and_done(task, options.shard, [&](const std::string& id) {
    return std::all_of(finished.begin(), finished.end(), [&](const auto& f) { return f.count(id) != 0; });
  });
  return mine - done;
}

EngineTaskStats run_task(const CausalLM& model, const Task& task, const std::vector<EngineVariant>& variants,
                         const EngineOptions& options) {
  EngineTaskStats stats;
  const auto t_start = std::chrono::steady_clock::now();
  {
    std::set<fs::path> dirs;
    for (const auto& v : variants) {
      if (!v.method) throw std::invalid_argument(fmt::format("engine: variant {} has no method", v.label));
      if (!dirs.insert(fs::absolute(v.out_dir).lexically_normal()).second) {
        throw std::invalid_argument(fmt::format("engine: two variants write to {}", v.out_dir.string()));
      }
    }
  }
  for (const auto& v : variants) check_shard_count(v.out_dir, task.name(), options.shard);  // the commands check first
  std::vector<std::unique_ptr<PredictionFile>> files;
  for (const auto& v : variants) {
    files.push_back(
        std::make_unique<PredictionFile>(prediction_path(v.out_dir, task.name(), options.shard), WarningSink{}, task.record_key()));
  }
  std::unique_ptr<PredictionFile> prompts;
  if (!options.prompts_dir.empty()) {
    prompts = std::make_unique<PredictionFile>(prediction_path(options.prompts_dir, task.name(), options.shard),
                                               WarningSink{}, "prompt");
  }
  // Samples another file of the folder finished (a whole run's, or the shards' for a whole run)
  // are copied in their turn, keeping the file in data order, not redone.
  std::vector<std::unordered_map<std::string, std::string>> elsewhere(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (!lacks_owned(task, options.shard, [&](const std::string& id) { return files[i]->has(id); })) continue;
    elsewhere[i] = predictions_in_other_files(variants[i].out_dir, task.name(), options.shard, task.record_key());
  }
  const auto [mine, done] = owned_and_done(task, options.shard, [&](const std::string& id) {
    for (std::size_t i = 0; i < variants.size(); ++i) {
      if (!files[i]->has(id) && elsewhere[i].count(id) == 0) return false;
    }
    return true;
  });
  std::unique_ptr<ProgressBar> bar;
  if (options.progress && done < mine) {
    bar = std::make_unique<ProgressBar>(
        variants.size() > 1 ? fmt::format("{} x{}", task.name(), variants.size()) : task.name(), mine, done, stderr,
        -1, 10.0, options.run_progress);
  }

  std::vector<std::size_t> copied(variants.size(), 0);
  for (std::size_t k = 0; k < task.size(); ++k) {
    if (!options.shard.owns(k)) continue;
    const auto& id = task.sample_id(k);
    std::vector<std::size_t> pending;
    for (std::size_t i = 0; i < variants.size(); ++i) {
      const auto copy = elsewhere[i].find(id);
      if (!files[i]->has(id) && copy != elsewhere[i].end()) {
        files[i]->append_line(id, copy->second);
        ++copied[i];
      }
      if (!files[i]->has(id)) pending.push_back(i);
    }
    if (pending.empty()) continue;
    release_free_heap();  // what the previous sample's transients left free
    const auto t0 = std::chrono::steady_clock::now();
    const TaskPrompt prompt = task.prompt(k);
    if (prompt.ids.empty()) throw std::runtime_error(fmt::format("{}: sample {} has an empty prompt", task.name(), id));
    if (prompts && !prompts->has(id)) prompts->append_line(id, prompt_record(id, prompt));
    const TaskDecoding decoding = task.decoding(k);
    GenerateOptions go;
    go.max_new_tokens = decoding.max_new_tokens;
    go.min_new_tokens = decoding.min_new_tokens;
    go.stop_tokens = options.stop_tokens;
    go.stop_tokens.insert(go.stop_tokens.end(), decoding.extra_stop_tokens.begin(), decoding.extra_stop_tokens.end());
    if (go.max_new_tokens < 0) throw std::logic_error("engine: a task asked for a negative generation length");
    const bool forced = !decoding.forced.empty();
    const int64_t after_prompt = forced ? static_cast<int64_t>(decoding.forced.size()) : go.max_new_tokens;
    if (options.context_tokens > 0 && static_cast<int64_t>(prompt.ids.size()) + after_prompt > options.context_tokens) {
      throw std::runtime_error(fmt::format(
          "{}: sample {} needs {} prompt + {} {} tokens, more than the model's {}-token context; make its "
          "prompts for this model (shorter lengths, or regenerate the data)",
          task.name(), id, prompt.ids.size(), after_prompt, forced ? "forced" : "generated", options.context_tokens));
    }

    // One prefill, observed by every pending variant's session.
    const auto n = static_cast<int64_t>(prompt.ids.size());
    // Declared before the sessions: they read the shared observations until they finish.
    ObservationShare share;
    HookRegistry hooks;
    std::vector<std::unique_ptr<CompressionSession>> sessions(pending.size());
    for (std::size_t j = 0; j < pending.size(); ++j) {
      sessions[j] = variants[pending[j]].method->begin(hooks, n, &share);
    }
    KVCache full(model.num_layers());
    full.set_headroom(after_prompt);
    auto tp = std::chrono::steady_clock::now();
    const auto tokens = at::tensor(prompt.ids, at::kLong).view({1, n}).to(model.device());
    const at::Tensor logits = model.prefill(tokens, full, &hooks);
    (void)logits.cpu();  // include the device's queued work in the timing
    const double prefill_seconds = seconds_since(tp);
    stats.prefill_seconds += prefill_seconds;
    ++stats.samples;

    ProgressBar::SampleStats sample_stats;
    sample_stats.prompt_tokens = n;
    sample_stats.prefill_seconds = prefill_seconds;
    if (forced) {
      compare_forced(model, task, k, logits, decoding.forced, full, sessions, pending, variants, files, options, stats,
                     sample_stats);
      sample_stats.wall_seconds = seconds_since(t0);
      if (bar) bar->sample_done(sample_stats);
      continue;
    }
    // Each variant compresses its own copy of the full cache (the last one takes it).
    std::vector<KVCache> caches;
    std::vector<CompressionReport> reports;
    for (std::size_t j = 0; j < pending.size(); ++j) {
      KVCache cache = j + 1 == pending.size() ? std::move(full) : full.clone();
      const auto tc = std::chrono::steady_clock::now();
      reports.push_back(sessions[j]->finish(cache, model));
      if (cache.length(0) > 0) (void)cache.keys(0).cpu();
      stats.compress_seconds += seconds_since(tc);
      caches.push_back(std::move(cache));
    }
    std::vector<GenerateResult> results;
    if (options.batch_decode) {
      results = greedy_continue_batch(model, logits, caches, go, decode_cost_model(model));
    } else {
      for (auto& cache : caches) {
        results.push_back(greedy_continue(model, logits, cache, go));
        cache.clear();
      }
    }
    for (std::size_t j = 0; j < pending.size(); ++j) {
      const std::size_t i = pending[j];
      const GenerateResult& r = results[j];
      const CompressionReport& report = reports[j];
      stats.decode_seconds += r.decode_seconds;
      const std::string pred = task.prediction(r.tokens, r.stop_token);
      // Kept counts first: a sample with a prediction line is finished, so its other records
      // must already be on disk (see eval/kept_tokens_log.h).
      append_kept_tokens(variants[i].out_dir, task.name(), options.shard, id, n, report.compressed, report.kept);
      files[i]->append_line(id, task.record(k, pred));
      ++stats.decodes;
      // The first token comes from the prefill logits.
      sample_stats.generated_tokens += std::max<int64_t>(0, static_cast<int64_t>(r.tokens.size()) - 1);
      sample_stats.decode_seconds += r.decode_seconds;
    }
    sample_stats.wall_seconds = seconds_since(t0);
    if (bar) bar->sample_done(sample_stats);
  }
  if (bar) bar->finish();
  for (std::size_t i = 0; i < variants.size(); ++i) {
    stats.copied += copied[i];
    if (copied[i] > 0 && options.progress) {
      fmt::print(stderr, "{}: {} {} prediction{} copied from the folder's {} file{}, not redone\n",
                 variants[i].out_dir.string(), copied[i], task.name(), copied[i] == 1 ? "" : "s",
                 options.shard.is_whole() ? "shard" : "whole-run", options.shard.is_whole() ? "s" : "");
    }
  }
  stats.wall_seconds = seconds_since(t_start);
  return stats;
}

}  // namespace ripplekv::eval
