// `ripplekv fidelity`: KL divergence and top-1 agreement of compressed caches against the
// full cache, for several methods x budgets, as a markdown + CSV table.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <memory>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/compress/policy_catalog.h"
#include "eval/cli/command.h"
#include "eval/cli/method_grid.h"
#include "eval/progress_bar.h"
#include "core/compress/fidelity.h"
#include "core/compress/method_presets.h"
#include "core/ripple/calibration.h"
#include "core/ripple/profile_runner.h"
#include "models/loaders/load_model.h"

namespace ripplekv::cli {
namespace {

// Every option in force (given, from --config, or default), for config.json.
nlohmann::ordered_json resolved_options(const po::variables_map& vm) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [key, value] : vm) {
    const auto& v = value.value();
    if (key == "help") continue;
    if (const auto* s = boost::any_cast<std::string>(&v)) j[key] = *s;
    else if (const auto* i = boost::any_cast<int64_t>(&v)) j[key] = *i;
    else if (const auto* n = boost::any_cast<int>(&v)) j[key] = *n;
    else if (const auto* d = boost::any_cast<double>(&v)) j[key] = *d;
    else if (const auto* b = boost::any_cast<bool>(&v)) j[key] = *b;
    else if (const auto* l = boost::any_cast<std::vector<std::string>>(&v)) j[key] = *l;
  }
  return j;
}

}  // namespace

int run_fidelity_command(const std::vector<std::string>& args) {
  RuntimeArgs rt;
  std::string texts_path, format = "auto", text_field = "text", methods_s, budgets_s = "32,64,128", profile, calibration,
                                  out;
  FidelityOptions fo;
  int64_t max_texts = 8, skip_texts = 0;
  po::options_description desc;
  add_runtime_options(desc, rt);
  desc.add_options()("texts", po::value<std::string>(&texts_path)->required(),
                     "texts: .txt (lines or blank-line blocks), .jsonl, or a LongBench file")(
      "texts-format", po::value<std::string>(&format)->default_value(format), "auto | lines | blocks | jsonl | longbench")(
      "text-field", po::value<std::string>(&text_field)->default_value(text_field), "JSON lines text field")(
      "methods", po::value<std::string>(&methods_s)->default_value("snapkv,pyramidkv,streamingllm,h2o"),
      "comma-separated methods: presets (full snapkv pyramidkv streamingllm h2o cake squeeze ripple random knorm) or "
      "selector:allocator, each optionally @key=value,...")(
      "budgets", po::value<std::string>(&budgets_s)->default_value(budgets_s), "comma-separated budgets")(
      "prompt-tokens", po::value<int64_t>(&fo.prompt_tokens)->default_value(512), "prompt tokens per text")(
      "continuation", po::value<int64_t>(&fo.continuation)->default_value(64), "continuation tokens compared")(
      "max-texts", po::value<int64_t>(&max_texts)->default_value(8), "texts used at most")(
      "skip-texts", po::value<int64_t>(&skip_texts)->default_value(0),
      "skip the first N texts (e.g. the ones a profile was calibrated on)")(
      "profile", po::value<std::string>(&profile)->default_value(""), "sensitivity profile for ripple methods")(
      "calibration", po::value<std::string>(&calibration)->default_value(""),
      "calibration file to profile on the fly for ripple methods without a profile")(
      "out", po::value<std::string>(&out)->default_value(""), "folder for fidelity.md, fidelity.csv and per-text fidelity_texts.csv");
  po::variables_map vm;
  if (!parse_options("fidelity", args, desc, vm)) return 0;
  if (!out.empty()) require_out_folder(out);
  apply_threads(rt.threads);

  const std::vector<int64_t> budgets =
      parse_int_list(budgets_s, "budgets", 1, int64_t{1} << 40, "a budget (tokens per layer, >= 1)", "64,128,256");
  if (max_texts < 1) throw UsageError(fmt::format("--max-texts {}: must be >= 1", max_texts));
  if (skip_texts < 0) throw UsageError(fmt::format("--skip-texts {}: must be >= 0", skip_texts));
  const auto methods = split_methods(methods_s);
  if (methods.empty() || budgets.empty()) throw UsageError("fidelity: give at least one method and one budget");
  for (std::size_t i = 0; i < methods.size(); ++i) {
    (void)parse_method(methods[i], 1);  // names fail before the model loads
    if (std::find(methods.begin(), methods.begin() + static_cast<std::ptrdiff_t>(i), methods[i]) != methods.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw UsageError(fmt::format("--methods: \"{}\" is listed twice", methods[i]));
    }
  }

  auto model = load_model(rt.model, {parse_dtype(rt.dtype), parse_device(rt.device)});
  const int64_t context = model->config().max_position_embeddings;
  if (context > 0 && fo.prompt_tokens + fo.continuation > context) {
    throw UsageError(fmt::format("--prompt-tokens {} + --continuation {} exceed the model's {}-token context",
                                 fo.prompt_tokens, fo.continuation, context));
  }
  Tokenizer tok(find_tokenizer(rt.model, rt.tokenizer, static_cast<int>(model->config().vocab_size)));
  const auto set = read_calibration(texts_path, format, text_field);
  std::vector<std::vector<int64_t>> texts;
  for (size_t i = static_cast<size_t>(std::max<int64_t>(skip_texts, 0)); i < set.texts.size(); ++i) {
    const auto& t = set.texts[i];
    if (static_cast<int64_t>(texts.size()) >= max_texts) break;
    auto ids = tok.encode(t, true);
    if (static_cast<int64_t>(ids.size()) < fo.prompt_tokens + fo.continuation) continue;
    texts.emplace_back(ids.begin(), ids.end());
  }
  auto resolve = [&](CompressionSpec spec) {
    if (allocator_is_model_bound(spec.allocator) && !spec.options.count("profile") && !spec.options.count("calibration")) {
      if (!profile.empty()) spec.options["profile"] = profile;
      else if (!calibration.empty()) spec.options["calibration"] = calibration;
    }
    return resolve_ripple_profile(spec, *model, tok, rt.model);
  };
  // Profiles (ripple without profile=) are resolved before the bar starts.
  std::unique_ptr<eval::ProgressBar> bar;
  auto last = std::chrono::steady_clock::now();
  auto rows = run_fidelity(*model, texts, methods, budgets, fo, resolve, [&](std::size_t done, std::size_t total) {
    if (!bar) bar = std::make_unique<eval::ProgressBar>("fidelity texts", total, 0);
    const auto now = std::chrono::steady_clock::now();
    eval::ProgressBar::SampleStats stats;
    stats.wall_seconds = std::chrono::duration<double>(now - last).count();
    last = now;
    bar->sample_done(stats);
    if (done == total) bar->finish();
  });
  const auto md = fidelity_markdown(rows);
  std::cout << md;
  std::cerr << fmt::format("{} texts x {} continuation tokens after a {}-token prompt\n",
                           rows.empty() ? 0 : rows[0].texts, fo.continuation, fo.prompt_tokens);
  if (!out.empty()) {
    std::filesystem::create_directories(out);
    nlohmann::ordered_json config;
    config["ripplekv_fidelity_config"] = 1;
    config["options"] = resolved_options(vm);
    config["texts_used"] = rows.empty() ? 0 : rows[0].texts;
    std::ofstream(out + "/config.json") << config.dump(2) << "\n";
    std::ofstream(out + "/fidelity.md") << md;
    std::ofstream(out + "/fidelity_texts.csv") << fidelity_texts_csv(rows);
    std::ofstream(out + "/fidelity.csv") << fidelity_csv(rows);  // last: its presence marks a finished run
    std::cerr << fmt::format("wrote {}/config.json, fidelity.md, fidelity_texts.csv and fidelity.csv\n", out);
  }
  return 0;
}

}  // namespace ripplekv::cli
