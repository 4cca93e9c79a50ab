// `ripplekv needle`: the needle-in-a-haystack grid (eval/needle/needle_task.h), depths x
// lengths, for one method or methods x budgets on one prefill per cell; resumable and
// shardable. Each variant folder gets needle.jsonl (predictions and scores), needle.json (the
// grid, for scripts/plot_needle.py), result.json ({"needle@<length>": mean over depths},
// read by `ripplekv table`) and results.md.
#include <ATen/ATen.h>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "eval/cli/command.h"
#include "eval/cli/deferred_errors.h"
#include "eval/cli/method_grid.h"
#include "eval/chat_template.h"
#include "eval/engine/engine.h"
#include "eval/haystack.h"
#include "eval/needle/needle_task.h"
#include "eval/run_state.h"
#include "models/config/model_config.h"
#include "models/generation/generate.h"
#include "models/loaders/opened_model.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::cli {
namespace {
namespace fs = std::filesystem;
using namespace ripplekv::eval;

}  // namespace

int run_needle(const std::vector<std::string>& args) {
  RuntimeArgs rt;
  MethodArgs method;
  std::string lengths_csv = "1024,2048,4096", depths_csv = "0,25,50,75,100", out_s, shard_s, methods, budgets, decode;
  std::string haystack = std::string(RIPPLEKV_SHARED_DATA) + "/haystack/PaulGrahamEssays", chat_name = "auto";
  int64_t max_new = 48, context_tokens = 0;
  po::options_description desc;
  add_runtime_options(desc, rt);
  add_method_options(desc, method);
  add_method_grid_options(desc, methods, budgets, decode);
  desc.add_options()
      ("lengths", po::value<std::string>(&lengths_csv)->default_value(lengths_csv), "context lengths in tokens (prompt + answer)")
      ("depths", po::value<std::string>(&depths_csv)->default_value(depths_csv), "needle depths in percent of the haystack")
      ("max-new-tokens", po::value<int64_t>(&max_new)->default_value(max_new), "answer length")
      ("haystack", po::value<std::string>(&haystack)->default_value(haystack), "folder of essay .txt files")
      ("chat-template", po::value<std::string>(&chat_name)->default_value(chat_name), "auto | none | llama2 | mistral | llama3 | chatml")
      ("context-tokens", po::value<int64_t>(&context_tokens)->default_value(0), "the model's context (0 = max_position_embeddings)")
      ("out", po::value<std::string>(&out_s)->required(), "results folder")
      ("shard", po::value<std::string>(&shard_s)->default_value(""), "i/n: run only cells k with k % n == i");
  po::variables_map vm;
  if (!parse_options("needle", args, desc, vm)) return 0;
  const bool batch_decode = parse_decode_mode(decode);
  require_out_folder(out_s);
  if (context_tokens < 0) throw UsageError(fmt::format("--context-tokens {}: must be >= 0 (0 = the model's)", context_tokens));
  apply_threads(rt.threads);
  if (max_new < 1) throw UsageError("--max-new-tokens must be >= 1");
  const auto lengths = parse_int_list(lengths_csv, "lengths", 64, int64_t{1} << 24, "a context length of at least 64 tokens",
                                      "--lengths 1024,2048,4096");
  const auto depths = parse_int_list(depths_csv, "depths", 0, 100, "a depth in percent, 0..100", "--depths 0,25,50,75,100");
  if (lengths.empty() || depths.empty()) throw UsageError("needle: give at least one length and one depth");
  const Shard shard = shard_s.empty() ? Shard{} : parse_shard(shard_s);
  const fs::path out(out_s);
  auto plan = plan_variants(method, methods, budgets, out);
  for (auto& p : plan) p.command_args = args;
  const bool grid = !methods.empty();
  std::string essays;
  try {
    essays = read_essay_haystack(haystack);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }

  const OpenedModel opened(rt.model, rt.tokenizer, {parse_dtype(rt.dtype), parse_device(rt.device)});
  const ModelConfig& mc = opened.config();
  const int64_t context = context_tokens > 0 ? context_tokens : mc.max_position_embeddings;
  for (auto len : lengths) {
    if (len > context) {
      throw UsageError(fmt::format("--lengths {}: longer than the model's context of {} tokens; use lengths up to {}", len, context, context));
    }
  }
  const Tokenizer& tok = opened.tokenizer();
  std::string why;
  const ChatTemplate chat = chat_name == "auto" ? auto_chat_template(rt.model, &why) : chat_template_from_name(chat_name);
  std::vector<NeedleCell> cells;
  for (auto len : lengths) {
    for (auto d : depths) cells.push_back({len, static_cast<int>(d)});
  }
  const NeedleEngineTask task(cells, essays, tok, chat, max_new);
  for (std::size_t k = 0; k < task.size(); ++k) (void)task.prompt(k);  // every cell fits, before anything runs

  create_methods(plan, opened);
  nlohmann::ordered_json run_common;
  run_common["benchmark"] = "needle";
  run_common["model"] = fs::absolute(rt.model).lexically_normal().string();
  run_common["tokenizer"] = fs::absolute(opened.tokenizer_path()).lexically_normal().string();
  run_common["dtype"] = rt.dtype;
  run_common["device"] = rt.device;
  run_common["tasks"] = nlohmann::ordered_json::array();
  for (auto len : lengths) run_common["tasks"].push_back(fmt::format("needle@{}", len));
  run_common["depths"] = depths;
  run_common["max_new_tokens"] = max_new;
  run_common["haystack"] = fs::absolute(haystack).lexically_normal().string();
  run_common["chat_template"] = std::string(chat_template_name(chat.kind));
  nlohmann::ordered_json info_extra;
  info_extra["metric"] = "ROUGE-1 recall x 100 of the needle's answer words";
  const auto claimed = claim_variant_dirs(plan, shard, run_common, info_extra, "needle");
  const auto& variants = claimed.variants;
  std::cerr << fmt::format("ripplekv needle: {} | {} | lengths {} x depths {} | out {}\n", rt.model,
                           grid ? fmt::format("{} variants, one prefill per cell", plan.size()) : plan.front().method->describe(),
                           lengths_csv, depths_csv, out.string());
  std::vector<std::string> ids;
  for (const auto& c : cells) ids.push_back(c.id());
  std::vector<EngineVariant> todo;
  for (const auto& v : variants) {
    if (!prediction_file_complete(prediction_path(v.out_dir, task.name(), Shard{}), ids)) todo.push_back(v);
  }
  if (!todo.empty()) {
    EngineOptions engine;
    engine.batch_decode = batch_decode;
    engine.shard = shard;
    engine.stop_tokens = opened.stop_tokens();
    const auto st = run_task(opened.model(), task, todo, engine);
    std::cerr << fmt::format("needle: {} cells prefilled, {} predictions in {:.1f} s\n", st.samples, st.decodes, st.wall_seconds);
  }
  DeferredErrors unmergeable;  // reported after the other folders are scored
  for (const auto& p : plan) {
    bool complete = false;
    try {
      complete = complete_or_merge(p.dir, task.name(), ids);
    } catch (const std::runtime_error& e) {
      unmergeable.add(e.what());
      continue;
    }
    if (!complete) {
      std::cerr << fmt::format("{}: not complete yet (other shards running)\n", p.dir.string());
      continue;
    }
    const std::string label = grid ? p.dir.filename().string() : p.method->describe();
    std::cout << write_needle_results(p.dir, label, lengths, depths) << "\n";
  }
  std::cerr << "heatmaps: .venv/bin/python scripts/plot_needle.py <run folder>... --out <folder>\n";
  unmergeable.throw_if_any();
  return 0;
}

}  // namespace ripplekv::cli
