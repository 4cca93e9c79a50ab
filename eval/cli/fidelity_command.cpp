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
#include "eval/cli/run_groups.h"
#include "eval/cli/method_grid.h"
#include "eval/engine/engine.h"
#include "eval/fidelity/fidelity.h"
#include "eval/run_arithmetic.h"
#include "core/compress/method_presets.h"
#include "core/ripple/calibration.h"
#include "models/loaders/opened_model.h"

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

struct FidelityArgs {
  RuntimeArgs rt;
  std::string texts_path, format = "auto", text_field = "text", methods_s, budgets_s = "32,64,128", profile,
                          calibration, out;
  eval::FidelityOptions fo;
  int64_t max_texts = 8, skip_texts = 0;
  nlohmann::ordered_json options;  // every option in force, for config.json
  std::vector<std::string> methods;
  std::vector<int64_t> budgets;
};

// Parses and checks one `ripplekv fidelity` command line; false when --help was shown.
bool parse_fidelity_args(const std::vector<std::string>& args, FidelityArgs& a) {
  po::options_description desc;
  add_runtime_options(desc, a.rt);
  desc.add_options()("texts", po::value<std::string>(&a.texts_path)->required(),
                     "texts: .txt (lines or blank-line blocks), .jsonl, a LongBench .jsonl or a MiniLongBench .json")(
      "texts-format", po::value<std::string>(&a.format)->default_value(a.format), "auto | lines | blocks | jsonl | longbench | minilongbench")(
      "text-field", po::value<std::string>(&a.text_field)->default_value(a.text_field), "JSON lines text field")(
      "methods", po::value<std::string>(&a.methods_s)->default_value("snapkv,pyramidkv,streamingllm,h2o"),
      ("comma-separated methods: presets (" + method_preset_names() +
       ") or selector:allocator, each optionally @key=value,...").c_str())(
      "budgets", po::value<std::string>(&a.budgets_s)->default_value(a.budgets_s), "comma-separated budgets")(
      "prompt-tokens", po::value<int64_t>(&a.fo.prompt_tokens)->default_value(512), "prompt tokens per text")(
      "continuation", po::value<int64_t>(&a.fo.continuation)->default_value(64), "continuation tokens compared")(
      "max-texts", po::value<int64_t>(&a.max_texts)->default_value(8), "texts used at most")(
      "skip-texts", po::value<int64_t>(&a.skip_texts)->default_value(0),
      "skip the first N texts (e.g. the ones a profile was calibrated on)")(
      "profile", po::value<std::string>(&a.profile)->default_value(""), "sensitivity profile for ripple methods")(
      "calibration", po::value<std::string>(&a.calibration)->default_value(""),
      "calibration file to profile on the fly for ripple methods without a profile")(
      "out", po::value<std::string>(&a.out)->default_value(""), "folder for fidelity.md, fidelity.csv and per-text fidelity_texts.csv");
  po::variables_map vm;
  if (!parse_options("fidelity", args, desc, vm)) return false;
  if (!a.out.empty()) require_out_folder(a.out);
  a.options = resolved_options(vm);
  a.budgets = parse_int_list(a.budgets_s, "budgets", 1, int64_t{1} << 40, "a budget (tokens per layer, >= 1)", "64,128,256");
  if (a.max_texts < 1) throw UsageError(fmt::format("--max-texts {}: must be >= 1", a.max_texts));
  if (a.skip_texts < 0) throw UsageError(fmt::format("--skip-texts {}: must be >= 0", a.skip_texts));
  a.methods = split_methods(a.methods_s);
  if (a.methods.empty() || a.budgets.empty()) throw UsageError("fidelity: give at least one method and one budget");
  for (std::size_t i = 0; i < a.methods.size(); ++i) {
    (void)parse_method(a.methods[i], 1);  // names fail before the model loads
    if (std::find(a.methods.begin(), a.methods.begin() + static_cast<std::ptrdiff_t>(i), a.methods[i]) != a.methods.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw UsageError(fmt::format("--methods: \"{}\" is listed twice", a.methods[i]));
    }
  }
  return true;
}

// Everything of a run but its methods, budgets and folder: runs of one group must agree on it.
std::string shared_settings(const FidelityArgs& a) {
  auto j = a.options;
  for (const auto* key : {"methods", "budgets", "out"}) j.erase(key);
  return j.dump();
}

void write_fidelity_folder(const FidelityArgs& a, const std::vector<eval::FidelityRow>& rows) {
  std::filesystem::create_directories(a.out);
  nlohmann::ordered_json config;
  config["ripplekv_fidelity_config"] = 1;
  config["options"] = a.options;
  // The arithmetic the bits follow, as run folders record it (cpu_kernels and cpu, on the CPU); the
  // thread count is among the options already.
  const auto arithmetic = eval::run_arithmetic(a.rt.device, a.rt.dtype);
  for (const auto& [key, value] : arithmetic.items()) {
    if (key != "threads") config[key] = value;
  }
  config["texts_used"] = rows.empty() ? 0 : rows[0].texts;
  // Per method as given: every policy option in force, defaults included (for table labels).
  nlohmann::ordered_json in_force = nlohmann::ordered_json::object();
  for (const auto& r : rows) in_force[r.method] = r.options_in_force;
  config["methods_in_force"] = in_force;
  std::ofstream(a.out + "/config.json") << config.dump(2) << "\n";
  std::ofstream(a.out + "/fidelity.md") << eval::fidelity_markdown(rows);
  std::ofstream(a.out + "/fidelity_texts.csv") << eval::fidelity_texts_csv(rows);
  std::ofstream(a.out + "/fidelity.csv") << eval::fidelity_csv(rows);  // last: its presence marks a finished run
  std::cerr << fmt::format("wrote {}/config.json, fidelity.md, fidelity_texts.csv and fidelity.csv\n", a.out);
}

}  // namespace

int run_fidelity_command(const std::vector<std::string>& args) { return run_fidelity_group({args}); }

int run_fidelity_group(const std::vector<std::vector<std::string>>& runs) {
  std::vector<FidelityArgs> parsed;
  if (!parse_group("fidelity", runs, parsed, parse_fidelity_args, shared_settings)) return 0;
  const FidelityArgs& a = parsed.front();
  apply_threads(a.rt.threads);

  const OpenedModel opened(a.rt.model, a.rt.tokenizer, {parse_dtype(a.rt.dtype), parse_device(a.rt.device)});
  const int64_t context = opened.config().max_position_embeddings;
  if (context > 0 && a.fo.prompt_tokens + a.fo.continuation > context) {
    throw UsageError(fmt::format("--prompt-tokens {} + --continuation {} exceed the model's {}-token context",
                                 a.fo.prompt_tokens, a.fo.continuation, context));
  }
  const Tokenizer& tok = opened.tokenizer();
  const auto set = read_calibration(a.texts_path, a.format, a.text_field);
  std::vector<TokenIds> texts;
  for (size_t i = static_cast<size_t>(std::max<int64_t>(a.skip_texts, 0)); i < set.texts.size(); ++i) {
    const auto& t = set.texts[i];
    if (static_cast<int64_t>(texts.size()) >= a.max_texts) break;
    auto ids = tok.encode(t, true);
    if (static_cast<int64_t>(ids.size()) < a.fo.prompt_tokens + a.fo.continuation) continue;
    texts.push_back(std::move(ids));
  }
  // Every run's rows, each computed once, on one prefill per text for the whole group. A run
  // with --out keeps each variant's per-text records in <out>/variants/<variant>/, so a killed
  // run resumes there.
  std::vector<eval::FidelityVariant> variants;
  std::vector<std::vector<std::size_t>> rows_of(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (auto v : eval::fidelity_variants(parsed[i].methods, parsed[i].budgets)) {
      auto at = std::find_if(variants.begin(), variants.end(), [&](const auto& w) { return w.same_row(v); });
      if (at == variants.end()) {
        if (!parsed[i].out.empty()) {
          v.dir = std::filesystem::path(parsed[i].out) / "variants" /
                  eval::variant_folder(v.method, parse_method(v.method, v.budget));
        }
        at = variants.insert(variants.end(), v);
      }
      rows_of[i].push_back(static_cast<std::size_t>(at - variants.begin()));
    }
  }
  auto make_method = [&](CompressionSpec spec) {
    if (allocator_is_model_bound(spec.allocator) && !spec.options.count("profile") && !spec.options.count("calibration")) {
      if (!a.profile.empty()) spec.options["profile"] = a.profile;
      else if (!a.calibration.empty()) spec.options["calibration"] = a.calibration;
    }
    return CompressionMethod::create(spec, opened);
  };
  const auto all = eval::run_fidelity(opened.model(), texts, variants, a.fo, make_method, /*progress=*/true);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::vector<eval::FidelityRow> rows;
    for (auto k : rows_of[i]) rows.push_back(all[k]);
    if (runs.size() == 1) {
      std::cout << eval::fidelity_markdown(rows);
      std::cerr << fmt::format("{} texts x {} continuation tokens after a {}-token prompt\n",
                               rows.empty() ? 0 : rows[0].texts, a.fo.continuation, a.fo.prompt_tokens);
    }
    if (!parsed[i].out.empty()) write_fidelity_folder(parsed[i], rows);
  }
  return 0;
}

}  // namespace ripplekv::cli
