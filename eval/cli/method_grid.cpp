#include "eval/cli/method_grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <limits>

#include "core/compress/method_presets.h"
#include "core/compress/policy_catalog.h"
#include "core/ripple/profile_runner.h"
#include "eval/list_option.h"
#include "eval/longbench_score.h"
#include "eval/run_arithmetic.h"
#include "eval/run_config.h"

namespace ripplekv::cli {
namespace fs = std::filesystem;

std::vector<int64_t> parse_int_list(const std::string& csv, const std::string& option, int64_t lo, int64_t hi,
                                    const std::string& what, const std::string& example) {
  std::vector<int64_t> out;
  for (const auto& item : eval::split_list(csv)) {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < lo || v > hi) {
      throw UsageError(fmt::format("--{}: \"{}\" is not {} (e.g. {})", option, item, what, example));
    }
    if (std::find(out.begin(), out.end(), v) != out.end()) throw UsageError(fmt::format("--{}: {} is listed twice", option, v));
    out.push_back(v);
  }
  return out;
}

void add_method_grid_options(po::options_description& desc, std::string& methods, std::string& budgets,
                             std::string& decode) {
  desc.add_options()
      ("methods", po::value<std::string>(&methods)->default_value(""),
       ("a grid in one call, each sample prefilled once for all: comma-separated methods (presets " +
        method_preset_names() + ", or selector:allocator[@key=value,...]); each method x budget writes <out>/<method>_b<budget>/ (instead of --selector/--allocator/--budget)").c_str())
      ("budgets", po::value<std::string>(&budgets)->default_value(""), "with --methods: comma-separated budgets")
      ("decode", po::value<std::string>(&decode)->default_value("batched"),
       "batched: a sample's variants decode together, grouped by cache length (fast; bfloat16 on an AVX-512 CPU "
       "gives exactly the sequential bits, float32 batches and other CPUs round differently, so a prediction can "
       "differ after a near-tie); sequential: one after another, byte for byte what single-method runs write");
}

bool parse_decode_mode(const std::string& decode) {
  if (decode == "batched") return true;
  if (decode == "sequential") return false;
  throw UsageError(fmt::format("--decode: \"{}\" is neither batched nor sequential", decode));
}

std::vector<PlannedVariant> plan_variants(const MethodArgs& single, const std::string& methods,
                                          const std::string& budgets_csv, const fs::path& out) {
  std::vector<PlannedVariant> plan;
  const bool grid = !methods.empty();
  if (grid) {
    const MethodArgs defaults;
    if (single.selector != defaults.selector || single.allocator != defaults.allocator || single.budget != 0 ||
        !single.method_opts.empty() || single.ratio_given) {
      throw UsageError("--methods gives the methods of a grid: drop --selector, --allocator, --budget, --method-opt "
                       "and --ratio (write options into each method, e.g. snapkv@window=16, ripple@ratio=4)");
    }
    const auto texts = split_methods(methods);
    const auto budgets = parse_int_list(budgets_csv, "budgets", 1, std::numeric_limits<int64_t>::max(),
                                        "a positive token count", "--budgets 64,128,256");
    for (std::size_t i = 0; i < texts.size(); ++i) {
      if (std::find(texts.begin(), texts.begin() + static_cast<std::ptrdiff_t>(i), texts[i]) !=
          texts.begin() + static_cast<std::ptrdiff_t>(i)) {
        throw UsageError(fmt::format("--methods: \"{}\" is listed twice", texts[i]));
      }
      if (parse_method(texts[i], 0).selector == "full") {
        plan.push_back({texts[i], parse_method(texts[i], 0), nullptr, {}});
        continue;
      }
      if (budgets.empty()) throw UsageError(fmt::format("--methods {}: give --budgets (e.g. --budgets 64,128,256)", texts[i]));
      for (auto b : budgets) plan.push_back({texts[i], parse_method(texts[i], b), nullptr, {}});
    }
    if (plan.empty()) throw UsageError("--methods: no method given (e.g. --methods full,snapkv,pyramidkv)");
  } else {
    if (!budgets_csv.empty()) throw UsageError("--budgets goes with --methods; for one method use --budget N");
    plan.push_back({"", to_spec(single), nullptr, {}});
  }
  for (auto& p : plan) p.dir = grid ? out / eval::variant_folder(p.text, p.spec) : out;
  check_distinct_folders(plan);
  return plan;
}

void check_distinct_folders(const std::vector<PlannedVariant>& plan) {
  for (std::size_t i = 0; i < plan.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (plan[i].dir == plan[j].dir) {
        throw UsageError(fmt::format("--methods: {} and {} would share the folder {}", plan[j].text, plan[i].text,
                                     plan[i].dir.string()));
      }
    }
  }
}

void create_methods(std::vector<PlannedVariant>& plan, const OpenedModel& model) {
  for (auto& p : plan) {
    p.method = CompressionMethod::create(p.spec, model);
    p.spec = p.method->spec();
  }
}

ClaimedVariants claim_variant_dirs(const std::vector<PlannedVariant>& plan, const eval::Shard& shard,
                                   const nlohmann::ordered_json& run_common, const nlohmann::ordered_json& info_extra,
                                   const std::string& command) {
  ClaimedVariants out;
  std::vector<eval::RunDirClaim> claims;  // one folder per variant
  // The thread count and the CPU kernels the bits follow, the same for every variant.
  const auto arithmetic = eval::run_arithmetic(run_common.value("device", "cpu"), run_common.value("dtype", ""));
  for (const auto& p : plan) {
    std::string command_line = "ripplekv " + command;
    for (const auto& arg : p.command_args) command_line += " " + arg;
    out.locks.push_back(std::make_unique<eval::RunLock>(
        p.dir, shard.is_whole() ? ".ripplekv-lock" : fmt::format(".ripplekv-lock-shard-{}-of-{}", shard.index, shard.count),
        shard.is_whole() ? "this run folder" : fmt::format("shard {}/{} of this run folder", shard.index, shard.count)));
    nlohmann::ordered_json run = run_common;
    run["method"] = {{"selector", p.spec.selector}, {"allocator", p.spec.allocator}, {"budget", p.spec.budget},
                     {"options", p.spec.options}};
    nlohmann::ordered_json info;
    info["method"] = p.method->describe();
    info[eval::kMethodOptionsKey] = p.method->options_in_force();
    if (!p.method->notes().empty()) info["notes"] = p.method->notes();
    for (const auto& [key, value] : info_extra.items()) info[key] = value;
    info["command"] = command_line;
    for (const auto& [key, value] : arithmetic.items()) info[key] = value;
    claims.push_back({p.dir, std::move(run), std::move(info)});
  }
  // Every folder is checked before any is changed: a refusal leaves none extended.
  eval::claim_run_dirs(claims, [](const eval::RunDirClaim& c, eval::RunDirState state) {
    if (state != eval::RunDirState::kExtended) return;
    eval::remove_score_files(c.dir);  // they scored the smaller sample set
    std::cerr << fmt::format("{}: extended to more samples of the same data; its finished predictions are kept\n",
                             c.dir.string());
  });
  for (const auto& p : plan) out.variants.push_back({p.method->describe(), p.dir, p.method.get()});
  return out;
}

}  // namespace ripplekv::cli
