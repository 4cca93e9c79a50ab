// `ripplekv ruler`: RULER's synthetic tasks (eval/ruler/) at several context lengths, for one
// method or a grid of methods x budgets on one prefill per sample (eval/engine/engine.h);
// resumable and shardable like `longbench`, scored as RULER's evaluate.py scores.
//
//   <out>/data/<length>/<task>/validation.jsonl   the samples (generated here, or --data)
//   <out>[/<variant>]/<length>/<task>.jsonl       predictions in RULER's format
//   <out>[/<variant>]/result.json, results.md     scores ({"<task>@<length>": score})
#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <vector>

#include "eval/cli/command.h"
#include "eval/cli/deferred_errors.h"
#include "eval/cli/method_grid.h"
#include "eval/chat_template.h"
#include "eval/engine/engine.h"
#include "eval/longbench_score.h"
#include "eval/progress_bar.h"
#include "eval/prompt_builder.h"
#include "eval/ruler/ruler_generate.h"
#include "eval/ruler/ruler_score.h"
#include "eval/ruler/ruler_task.h"
#include "eval/run_config.h"
#include "eval/run_state.h"
#include "models/config/model_config.h"
#include "models/generation/generate.h"
#include "models/loaders/opened_model.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::cli {
namespace {

namespace fs = std::filesystem;
using namespace ripplekv::eval;

std::string default_words_dir() {
  const char* cache = std::getenv("RIPPLEKV_DATA_CACHE");
  const char* home = std::getenv("HOME");
  const fs::path root = cache && *cache ? fs::path(cache) : fs::path(home ? home : ".") / ".cache" / "ripplekv";
  return (root / "ruler" / "wonderwords-3.0.1").string();
}

std::string absolute(const std::string& p) { return fs::absolute(fs::path(p)).lexically_normal().string(); }

// RULER's data layout: <data>/<length>/<task>/validation.jsonl, or <data>/<task>/validation.jsonl for one length.
fs::path data_file(const fs::path& root, int64_t length, const std::string& task, bool one_length) {
  const auto with_length = root / std::to_string(length) / task / "validation.jsonl";
  if (fs::exists(with_length) || !one_length) return with_length;
  return root / task / "validation.jsonl";
}

}  // namespace

int run_ruler(const std::vector<std::string>& args) {
  RuntimeArgs rt;
  MethodArgs method;
  std::string tasks_csv = "all", lengths_csv = "4096,8192", out_s, data_s, shard_s, haystack, words, methods, budgets, decode;
  std::string chat_name = "auto";
  int64_t samples = 10, context_tokens = 0;
  uint64_t seed = 42;
  bool save_prompts = false;
  haystack = std::string(RIPPLEKV_SHARED_DATA) + "/haystack/PaulGrahamEssays";
  words = default_words_dir();
  po::options_description desc;
  add_runtime_options(desc, rt);
  add_method_options(desc, method);
  add_method_grid_options(desc, methods, budgets, decode);
  desc.add_options()
      ("tasks", po::value<std::string>(&tasks_csv)->default_value(tasks_csv),
       "comma-separated RULER tasks, or all (niah_single_1/2/3, niah_multikey_1/2/3, niah_multivalue, "
       "niah_multiquery, vt, cwe, fwe)")
      ("lengths", po::value<std::string>(&lengths_csv)->default_value(lengths_csv),
       "context lengths in tokens (input + answer prefix + generated tokens, chat template included)")
      ("samples", po::value<int64_t>(&samples)->default_value(samples), "samples per task and length")
      ("seed", po::value<uint64_t>(&seed)->default_value(seed), "random seed of the generated samples")
      ("data", po::value<std::string>(&data_s)->default_value(""),
       "read RULER's own prepare.py output instead of generating: <data>/<length>/<task>/validation.jsonl")
      ("haystack", po::value<std::string>(&haystack)->default_value(haystack), "folder of essay .txt files (niah essay haystacks)")
      ("words", po::value<std::string>(&words)->default_value(words),
       "wonderwords' word lists (scripts/get_ruler_data.sh puts them here)")
      ("chat-template", po::value<std::string>(&chat_name)->default_value(chat_name),
       "auto | none | llama2 | mistral | llama3 | chatml")
      ("context-tokens", po::value<int64_t>(&context_tokens)->default_value(0),
       "the model's context (0 = max_position_embeddings); no length may exceed it")
      ("out", po::value<std::string>(&out_s)->required(), "results folder")
      ("shard", po::value<std::string>(&shard_s)->default_value(""), "i/n: run only samples k with k % n == i")
      ("save-prompts", po::bool_switch(&save_prompts), "write each prompt's text and token counts to <out>/prompts/<length>/");
  po::variables_map vm;
  if (!parse_options("ruler", args, desc, vm)) return 0;
  const bool batch_decode = parse_decode_mode(decode);
  require_out_folder(out_s);
  apply_threads(rt.threads);
  if (samples < 1 || samples > 100000) {
    throw UsageError(fmt::format("--samples {}: must be between 1 and 100000 per task and length", samples));
  }
  if (context_tokens < 0) throw UsageError(fmt::format("--context-tokens {}: must be >= 0 (0 = the model's)", context_tokens));
  std::vector<const RulerTask*> tasks;
  try {
    tasks = parse_ruler_tasks(tasks_csv);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const auto lengths = parse_int_list(lengths_csv, "lengths", 256, int64_t{1} << 24,
                                      "a context length of at least 256 tokens", "--lengths 4096,8192");
  if (lengths.empty()) throw UsageError("--lengths: give at least one length (e.g. --lengths 4096,8192)");
  const Shard shard = shard_s.empty() ? Shard{} : parse_shard(shard_s);
  if (shard.index >= samples) {  // a shard takes samples k % n == i of each task: none here
    throw UsageError(fmt::format("--shard {}/{} with --samples {}: shard i/n runs the samples k of each task with "
                                 "k % n == i, so this one would run nothing; use at most {} shard(s), or no --shard",
                                 shard.index, shard.count, samples, samples));
  }
  const fs::path out(out_s);
  auto plan = plan_variants(method, methods, budgets, out);
  for (auto& p : plan) p.command_args = args;
  const bool grid = !methods.empty();

  const OpenedModel opened(rt.model, rt.tokenizer, {parse_dtype(rt.dtype), parse_device(rt.device)});
  const ModelConfig& mc = opened.config();
  const Tokenizer& tok = opened.tokenizer();
  std::string template_why;
  const ChatTemplate chat = chat_name == "auto" ? auto_chat_template(rt.model, &template_why) : chat_template_from_name(chat_name);
  if (template_why.empty()) template_why = fmt::format("chat template: {} (--chat-template)", chat_template_name(chat.kind));
  const int64_t context = context_tokens > 0 ? context_tokens : mc.max_position_embeddings;
  for (auto len : lengths) {
    if (len > context) {
      throw UsageError(fmt::format("--lengths {}: longer than the model's context of {} tokens ({}); use lengths up "
                                   "to {}",
                                   len, context, context_tokens > 0 ? "--context-tokens" : "max_position_embeddings in config.json",
                                   context));
    }
  }
  // RULER's lengths count the task text; the chat template's own tokens come off the budget
  // (RULER's model_template_token), so that template + input + answer fit the length.
  const int64_t template_tokens = static_cast<int64_t>(ruler_prompt_ids(tok, chat, "", "").size());

  // The samples: RULER's files (--data) or generated once into <out>/data (reused on resume),
  // written there only once the run folders are claimed.
  std::map<std::pair<int64_t, std::string>, std::vector<RulerSample>> data;
  std::vector<std::pair<fs::path, std::pair<int64_t, std::string>>> to_write;
  RulerResources resources;
  bool resources_loaded = false;
  const fs::path data_root = data_s.empty() ? out / "data" : fs::path(data_s);
  const auto t_data = std::chrono::steady_clock::now();
  for (auto len : lengths) {
    for (const auto* t : tasks) {
      // RULER's single-length layout (<data>/<task>/validation.jsonl) is read from --data only.
      const auto path = data_file(data_root, len, t->name, lengths.size() == 1 && !data_s.empty());
      std::vector<RulerSample> earlier;  // generated by a run of fewer samples, which this one extends
      if (!data_s.empty() || fs::exists(path)) {
        if (!data_s.empty() && !fs::exists(path)) {
          throw UsageError(fmt::format("--data {}: no {} (RULER's prepare.py layout: <data>/<length>/<task>/validation.jsonl)",
                                       data_s, path.string()));
        }
        auto s = read_ruler_samples(path);
        if (static_cast<int64_t>(s.size()) > samples) s.resize(static_cast<std::size_t>(samples));
        if (!data_s.empty() || static_cast<int64_t>(s.size()) == samples) {
          data[{len, t->name}] = std::move(s);
          continue;
        }
        earlier = std::move(s);
      }
      if (!resources_loaded) {
        resources = load_ruler_resources(haystack, words, tasks);
        resources_loaded = true;
      }
      std::cerr << fmt::format("ruler: generating {} x {} at {} tokens\n", samples, t->name, len);
      RulerGenerateOptions go;
      go.max_seq_length = len - template_tokens;
      go.num_samples = samples;
      go.seed = seed;
      auto s = generate_ruler_samples(*t, resources, [&](const std::string& text) {
        return static_cast<int64_t>(tok.encode(text, false).size());
      }, go);
      // Each sample comes from its own seeded stream, so the ones there must come back unchanged.
      for (std::size_t k = 0; k < earlier.size(); ++k) {
        const auto& a = earlier[k];
        const auto& b = s.at(k);
        if (a.index != b.index || a.input != b.input || a.outputs != b.outputs || a.answer_prefix != b.answer_prefix ||
            a.length != b.length) {
          throw std::runtime_error(fmt::format(
              "{}: sample {} is not the one --seed {} generates now for {} samples of {} at {} tokens; the folder "
              "was made with another seed, haystack, word lists, tokenizer or ripplekv: use another --out",
              path.string(), a.index, seed, samples, t->name, len));
        }
      }
      to_write.push_back({path, {len, t->name}});
      data[{len, t->name}] = std::move(s);
    }
  }
  const double data_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_data).count();

  create_methods(plan, opened);

  nlohmann::ordered_json run_common;
  run_common["benchmark"] = "ruler";
  run_common["model"] = absolute(rt.model);
  run_common["tokenizer"] = absolute(opened.tokenizer_path());
  run_common["dtype"] = rt.dtype;
  run_common["device"] = rt.device;
  run_common["tasks"] = nlohmann::ordered_json::array();
  for (auto len : lengths) {
    for (const auto* t : tasks) run_common["tasks"].push_back(fmt::format("{}@{}", t->name, len));
  }
  run_common["samples"] = samples;
  run_common["seed"] = seed;
  run_common["data"] = data_s.empty() ? "generated" : absolute(data_s);
  run_common["chat_template"] = std::string(chat_template_name(chat.kind));
  nlohmann::ordered_json info_extra;
  info_extra["chat_template_from"] = template_why;
  info_extra["template_tokens"] = template_tokens;
  std::map<std::pair<int64_t, std::string>, std::vector<std::string>> ids_of;
  for (const auto& [key, samples_here] : data) {
    for (const auto& s : samples_here) ids_of[key].push_back(std::to_string(s.index));
  }
  // Another shard count in a folder is refused before any folder is changed (claimed, extended).
  for (const auto& p : plan) {
    for (auto len : lengths) {
      for (const auto* t : tasks) {
        const auto dir = p.dir / std::to_string(len);
        if (!prediction_file_complete(prediction_path(dir, t->name, Shard{}), ids_of.at({len, t->name}))) {
          check_shard_count(dir, t->name, shard);
        }
      }
    }
  }
  const auto claimed = claim_variant_dirs(plan, shard, run_common, info_extra, "ruler");
  for (const auto& [path, key] : to_write) write_ruler_samples(path, data.at(key));
  std::cerr << fmt::format("ripplekv ruler: {} | {} | {} tasks x lengths {} x {} samples | {} | out {}{}\n", rt.model,
                           grid ? fmt::format("{} variants, one prefill per sample", plan.size()) : plan.front().method->describe(),
                           tasks.size(), lengths_csv, samples, template_why, out.string(),
                           shard.is_whole() ? "" : fmt::format(" | shard {}/{}", shard.index, shard.count));

  EngineOptions engine;
  engine.batch_decode = batch_decode;
  engine.shard = shard;
  engine.context_tokens = context;
  engine.stop_tokens = opened.stop_tokens();
  // Every (length, task) with unfinished variants, first counted for the run's progress line.
  struct Pending {
    int64_t length;
    std::unique_ptr<RulerEngineTask> task;
    std::vector<EngineVariant> todo;
  };
  std::vector<Pending> pending;
  RunProgress progress;
  for (auto len : lengths) {
    for (const auto* t : tasks) {
      const auto& ids = ids_of.at({len, t->name});
      std::vector<EngineVariant> todo;
      for (const auto& p : plan) {
        const auto dir = p.dir / std::to_string(len);
        if (prediction_file_complete(prediction_path(dir, t->name, Shard{}), ids)) continue;
        todo.push_back({p.method->describe(), dir, p.method.get()});
      }
      if (todo.empty()) continue;
      auto task = std::make_unique<RulerEngineTask>(*t, data.at({len, t->name}), tok, chat);
      const auto n = pending_samples(*task, todo, engine);
      progress.pending += n;
      // A prompt fills about its length, less the tokens it generates (RULER's length counts them).
      progress.pending_tokens += static_cast<int64_t>(n) * std::max<int64_t>(1, len - t->tokens_to_generate);
      pending.push_back({len, std::move(task), std::move(todo)});
    }
  }
  engine.run_progress = &progress;
  double run_seconds = 0;
  for (const auto& p : pending) {
    engine.prompts_dir = save_prompts ? out / "prompts" / std::to_string(p.length) : fs::path{};
    run_seconds += run_task(opened.model(), *p.task, p.todo, engine).wall_seconds;
  }

  // Merge finished shards; score each variant whose every file is complete.
  bool all = true;
  DeferredErrors unmergeable;
  for (const auto& p : plan) {
    if (extended_by_another_run(p.dir, run_common)) {  // its scores are that run's to write
      std::cerr << fmt::format("{}: extended to more samples by another run; not scored here\n", p.dir.string());
      all = false;
      continue;
    }
    bool complete = true;
    try {  // a folder that cannot merge is reported after the others are scored
      for (auto len : lengths) {
        for (const auto* t : tasks) complete &= complete_or_merge(p.dir / std::to_string(len), t->name, ids_of.at({len, t->name}));
      }
    } catch (const std::runtime_error& e) {
      unmergeable.add(e.what());
      continue;
    }
    if (!complete) {
      all = false;
      continue;
    }
    const std::string label = grid ? p.dir.filename().string() : p.method->describe();
    const auto scores = score_ruler_dir(p.dir, tasks, lengths);
    write_ruler_scores(p.dir, label, scores);
    if (extended_by_another_run(p.dir, run_common)) {  // extended while these were written
      remove_score_files(p.dir);
      all = false;
      continue;
    }
    std::cout << ruler_scores_markdown(label, scores) << "\n";
  }
  std::cerr << fmt::format("ruler: data {:.1f} s, runs {:.1f} s\n", data_seconds, run_seconds);
  if (!all) std::cerr << "not scored yet: some shards are still running; rerun any shard's command when all are done\n";
  unmergeable.throw_if_any();
  return 0;
}

}  // namespace ripplekv::cli
