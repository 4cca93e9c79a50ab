// `ripplekv longbench`: LongBench v1 predictions for one model and one KV-cache compression
// method, as the official pred.py makes them (eval/prompt_builder.h), resumable and
// shardable (eval/run_state.h), then scored as eval.py scores them (eval/longbench_score.h).
#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
#include <vector>
#include <sstream>
#include <stdexcept>
#include <string>

#include "eval/cli/command.h"
#include "eval/cli/deferred_errors.h"
#include "eval/cli/method_grid.h"
#include "eval/cli/run_groups.h"
#include "eval/chat_template.h"
#include "eval/engine/engine.h"
#include "eval/kept_tokens_log.h"
#include "eval/longbench_run.h"
#include "eval/longbench_score.h"
#include "eval/longbench_task.h"
#include "eval/model_presets.h"
#include "eval/progress_bar.h"
#include "eval/prompt_builder.h"
#include "eval/run_config.h"
#include "eval/run_state.h"
#include "models/config/model_config.h"
#include "models/loaders/opened_model.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::cli {
namespace {

namespace fs = std::filesystem;
using namespace ripplekv::eval;

struct LongBenchArgs {
  RuntimeArgs rt;
  MethodArgs method;
  std::string data, tasks, out;
  int64_t max_samples = 0;
  std::string shard;
  std::string chat_template = "auto";
  std::string preset = "auto";
  int64_t max_input_tokens = 0;
  int64_t context_tokens = 0;
  std::string on_bad_line = "stop";
  bool longbench_e = false;
  std::string methods, budgets, decode;
  bool save_prompts = false;
};

struct ResolvedLength {
  int64_t tokens = 0;
  std::string source;
};

ResolvedLength resolve_max_input(const LongBenchArgs& a) {
  if (a.max_input_tokens > 0) {
    return {a.max_input_tokens, "--max-input-tokens"};
  }
  if (a.max_input_tokens < 0) throw UsageError("--max-input-tokens must be >= 0 (0 = from the model preset)");
  if (a.preset != "auto") {
    const auto& p = find_model_preset(a.preset);
    return {p.max_input_tokens, fmt::format("preset {} ({})", p.name, p.source)};
  }
  if (auto p = preset_for_model_path(a.rt.model)) {
    return {p->max_input_tokens, fmt::format("preset {} ({}), matched from the model path", p->name, p->source)};
  }
  std::string names;
  for (const auto& p : model_presets()) names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", p.name, p.max_input_tokens);
  throw UsageError(fmt::format(
      "no maximum input length for {}: pass --max-input-tokens N (pred.py's model2maxlen: the context minus the "
      "longest generation, e.g. 3500 for a 4k model) or --preset NAME ({})",
      a.rt.model, names));
}

bool looks_like_chat_model(const std::string& model_path) {
  const fs::path p(model_path);
  std::string name = (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name.find("chat") != std::string::npos || name.find("instruct") != std::string::npos;
}

std::string run_label(const fs::path& dir) {
  return (dir.has_filename() ? dir.filename() : dir.parent_path().filename()).string();
}

std::string absolute(const std::string& p) { return fs::absolute(fs::path(p)).lexically_normal().string(); }

}  // namespace

namespace {

// Parses one `ripplekv longbench` command line; false when --help was shown.
bool parse_longbench_args(const std::vector<std::string>& args, LongBenchArgs& a) {
  po::options_description desc;
  add_runtime_options(desc, a.rt);
  add_method_options(desc, a.method);
  desc.add_options()
      ("data", po::value<std::string>(&a.data)->required(),
       "folder of task files: official <task>.jsonl or MiniLongBench_<task>.json")
      ("tasks", po::value<std::string>(&a.tasks)->required(), "comma-separated tasks, or \"all\" (16 English tasks)")
      ("out", po::value<std::string>(&a.out)->required(),
       "results folder: <task>.jsonl predictions, config.json, result.json, results.md/.csv")
      ("max-samples", po::value<int64_t>(&a.max_samples)->default_value(0), "first N samples per task (0 = all)")
      ("shard", po::value<std::string>(&a.shard)->default_value(""),
       "i/n: run only samples k with k % n == i (merge with longbench-merge)")
      ("chat-template", po::value<std::string>(&a.chat_template)->default_value(a.chat_template),
       "auto | none | llama2 | llama2-longbench | mistral | llama3 | chatml")
      ("preset", po::value<std::string>(&a.preset)->default_value(a.preset),
       "model preset for the max input length (auto: from the model path)")
      ("max-input-tokens", po::value<int64_t>(&a.max_input_tokens)->default_value(0),
       "truncate prompts in the middle to N tokens (pred.py's model2maxlen; 0 = from the preset)")
      ("context-tokens", po::value<int64_t>(&a.context_tokens)->default_value(0),
       "the model's context; prompts must fit it (0 = the model's max_position_embeddings)")
      ("on-bad-line", po::value<std::string>(&a.on_bad_line)->default_value(a.on_bad_line),
       "a malformed data record: skip (with a warning) | stop")
      ("e", po::bool_switch(&a.longbench_e), "LongBench-E: read <task>_e.jsonl, score per length bucket")
      ("save-prompts", po::bool_switch(&a.save_prompts),
       "write each sample's exact prompt text and token counts to <out>/prompts/<task>.jsonl");
  add_method_grid_options(desc, a.methods, a.budgets, a.decode);
  po::variables_map vm;
  return parse_options("longbench", args, desc, vm);
}

// Everything of a run but its method and its folder: runs of one group must agree on it.
std::string shared_settings(const LongBenchArgs& a) {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", a.rt.model, a.rt.tokenizer, a.rt.dtype,
                     a.rt.device, a.rt.threads, a.data, a.tasks, a.max_samples, a.shard, a.chat_template, a.preset,
                     a.max_input_tokens, a.context_tokens, a.on_bad_line, a.longbench_e, a.decode, a.save_prompts);
}

}  // namespace

int run_longbench(const std::vector<std::string>& args) { return run_longbench_group({args}); }

int run_longbench_group(const std::vector<std::vector<std::string>>& runs) {
  std::vector<LongBenchArgs> parsed;
  if (!parse_group("longbench", runs, parsed, parse_longbench_args, shared_settings)) return 0;
  for (const auto& p : parsed) require_out_folder(p.out);
  const LongBenchArgs& a = parsed.front();
  const bool group = runs.size() > 1;
  if (group && a.save_prompts) {
    throw std::logic_error("longbench: runs that save their prompts write them into their own folder: one per call");
  }
  const bool batch_decode = parse_decode_mode(a.decode);
  if (a.on_bad_line != "skip" && a.on_bad_line != "stop") {
    throw UsageError(fmt::format("--on-bad-line \"{}\": choose skip or stop", a.on_bad_line));
  }
  apply_threads(a.rt.threads);

  const auto tasks = parse_task_list(a.tasks);
  const Shard shard = a.shard.empty() ? Shard{} : parse_shard(a.shard);
  SampleReadOptions read;
  read.skip_malformed_lines = a.on_bad_line == "skip";
  std::vector<TaskSamples> data;
  for (const auto* t : tasks) {
    try {
      data.push_back(load_task_samples(a.data, *t, a.max_samples, a.longbench_e, read));
    } catch (const BadRecordError& e) {
      if (read.skip_malformed_lines) throw;
      throw BadRecordError(fmt::format("{} [with --on-bad-line skip, bad records are skipped with a warning]",
                                       e.what()));
    }
  }

  const OpenedModel opened(a.rt.model, a.rt.tokenizer, {parse_dtype(a.rt.dtype), parse_device(a.rt.device)});
  const ModelConfig& mc = opened.config();
  const Tokenizer& tok = opened.tokenizer();

  std::string template_why;
  const ChatTemplate chat = a.chat_template == "auto" ? auto_chat_template(a.rt.model, &template_why)
                                                      : chat_template_from_name(a.chat_template);
  if (template_why.empty()) template_why = fmt::format("chat template: {} (--chat-template)", chat_template_name(chat.kind));
  if (a.chat_template == "auto" && chat.kind == ChatTemplateKind::kNone && looks_like_chat_model(a.rt.model)) {
    std::cerr << fmt::format("warning: {} looks like a chat model but no chat template was found ({}); pass "
                             "--chat-template NAME, or --chat-template none to silence this\n",
                             a.rt.model, template_why);
  }
  const auto max_input = resolve_max_input(a);
  if (a.context_tokens < 0) throw UsageError("--context-tokens must be >= 0 (0 = the model's max_position_embeddings)");
  PromptOptions prompt_options;
  prompt_options.max_input_tokens = max_input.tokens;
  prompt_options.chat_template = chat;
  prompt_options.context_tokens = a.context_tokens > 0 ? a.context_tokens : mc.max_position_embeddings;
  for (const auto* t : tasks) {
    const auto warning = check_prompt_fits(*t, tok, prompt_options);
    if (!warning.empty()) std::cerr << "warning: " << warning << "\n";
  }

  // One plan for every run of the group: each sample is prefilled once for all of them.
  const fs::path out(group ? fs::path(a.out).parent_path() : fs::path(a.out));
  std::vector<PlannedVariant> plan;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (auto& p : plan_variants(parsed[i].method, parsed[i].methods, parsed[i].budgets, parsed[i].out)) {
      p.command_args = runs[i];
      plan.push_back(std::move(p));
    }
  }
  check_distinct_folders(plan);
  const bool grid = !a.methods.empty() || group;
  create_methods(plan, opened);

  nlohmann::ordered_json run_common;
  run_common["model"] = absolute(a.rt.model);
  run_common["tokenizer"] = absolute(opened.tokenizer_path());
  run_common["dtype"] = a.rt.dtype;
  run_common["device"] = a.rt.device;
  run_common["tasks"] = nlohmann::ordered_json::array();
  for (const auto* t : tasks) run_common["tasks"].push_back(std::string(t->name));
  for (const auto& d : data) {
    run_common["data"][std::string(d.task->name)] = {{"file", absolute(d.file.string())}, {"samples", d.samples.size()}};
  }
  run_common["max_samples"] = a.max_samples;
  run_common["on_bad_line"] = a.on_bad_line;
  run_common["longbench_e"] = a.longbench_e;
  run_common["prompt"] = {{"max_input_tokens", prompt_options.max_input_tokens},
                          {"context_tokens", prompt_options.context_tokens},
                          {"chat_template", std::string(chat_template_name(chat.kind))},
                          {"chat_system_prompt", chat.system_prompt}};
  nlohmann::ordered_json info_extra;
  info_extra["max_input_tokens_from"] = max_input.source;
  info_extra["chat_template_from"] = template_why;
  // Another shard count in a folder is refused before any folder is changed (claimed, extended).
  for (const auto& p : plan) {
    for (const auto& d : data) {
      const std::string name(d.task->name);
      if (!prediction_file_complete(prediction_path(p.dir, name, Shard{}), d.ids())) check_shard_count(p.dir, name, shard);
    }
  }
  const auto claimed = claim_variant_dirs(plan, shard, run_common, info_extra, "longbench");
  const auto& variants = claimed.variants;

  std::cerr << fmt::format("ripplekv longbench: {} | {} | max input {} tokens ({}) | {} | out {}{}\n", a.rt.model,
                           grid ? fmt::format("{} variants, one prefill per sample", plan.size())
                                : plan.front().method->describe(),
                           max_input.tokens, max_input.source, template_why, out.string(),
                           shard.is_whole() ? "" : fmt::format(" | shard {}/{}", shard.index, shard.count));

  EngineOptions engine;
  engine.batch_decode = batch_decode;
  engine.shard = shard;
  if (a.save_prompts) engine.prompts_dir = out / "prompts";
  engine.stop_tokens = opened.stop_tokens();
  // Every task with unfinished variants, first counted for the run's progress line.
  std::vector<std::pair<std::unique_ptr<LongBenchEngineTask>, std::vector<EngineVariant>>> pending;
  RunProgress progress;
  for (const auto& d : data) {
    const std::string name(d.task->name);
    const auto all_ids = d.ids();
    // Variants whose task is complete (merged, or this shard's part) are left out.
    std::vector<EngineVariant> todo;
    for (const auto& v : variants) {
      if (prediction_file_complete(prediction_path(v.out_dir, name, Shard{}), all_ids)) continue;
      const auto mine = shard_ids(all_ids, shard);
      if (!shard.is_whole() && prediction_file_complete(prediction_path(v.out_dir, name, shard), mine)) continue;
      todo.push_back(v);
    }
    if (todo.empty()) {
      std::cerr << fmt::format("{}: complete, skipped\n", name);
      continue;
    }
    auto task = std::make_unique<LongBenchEngineTask>(d, tok, prompt_options);
    progress.pending += pending_samples(*task, todo, engine);
    pending.emplace_back(std::move(task), std::move(todo));
  }
  engine.run_progress = &progress;
  for (const auto& [task, todo] : pending) run_task(opened.model(), *task, todo, engine);

  ScoreOptions score;
  score.longbench_e = a.longbench_e;
  score.read.skip_malformed_lines = false;
  std::vector<RunScores> scored;
  std::vector<std::string> waiting;
  DeferredErrors unmergeable;
  bool shards_waiting = false;
  for (const auto& p : plan) {
    const std::string prefix = grid ? p.dir.filename().string() + ": " : "";
    // Another run may extend the folder to more samples while this one works (a shard of it, or
    // a run beside a shard): this run's predictions stay, its scores of the smaller set do not.
    // Checked again after scoring, since the extension can land in between.
    std::optional<FinishedRun> finished;
    try {  // a folder that cannot merge is reported after the others are scored
      if (!eval::extended_by_another_run(p.dir, run_common)) finished = finish_run_dir(p.dir, data, score);
    } catch (const std::runtime_error& e) {
      unmergeable.add(prefix + e.what());
      continue;
    }
    if (!finished || (finished->complete && eval::extended_by_another_run(p.dir, run_common))) {
      if (finished) eval::remove_score_files(p.dir);
      const auto cap = eval::read_run_config(p.dir).value("max_samples", int64_t{0});
      waiting.push_back(fmt::format("{}another run extended this folder to --max-samples {} since this one started; "
                                    "this run's predictions are kept: rerun it with --max-samples {} to add its part "
                                    "(the folder is scored when all of its samples are done)",
                                    prefix, cap, cap));
      continue;
    }
    if (!finished->complete) {
      shards_waiting = true;
      for (const auto& line : finished->incomplete) waiting.push_back(prefix + line);
      continue;
    }
    scored.push_back(RunScores{grid ? p.dir.filename().string() : run_label(out), finished->results});
    for (const auto& f : finished->written) std::cerr << "wrote " << f.string() << "\n";
  }
  if (!waiting.empty()) {
    std::cerr << "not scored yet:\n";
    for (const auto& line : waiting) std::cerr << "  " << line << "\n";
    if (shards_waiting) {
      std::cerr << fmt::format("when every shard is done, `ripplekv longbench-merge --out {}` merges and scores {}\n",
                               grid ? "<out>/<variant>" : out.string(), grid ? "each variant folder" : "them");
    }
  }
  if (!scored.empty()) std::cout << results_markdown(scored);
  unmergeable.throw_if_any();
  return 0;
}

}  // namespace ripplekv::cli
