#include "core/cli/method_grid.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

#include "core/compress/method_presets.h"

namespace ripplekv::cli {
namespace fs = std::filesystem;

namespace {


std::vector<int64_t> parse_budget_list(const std::string& csv) {
  std::vector<int64_t> out;
  std::stringstream ss(csv);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    std::size_t used = 0;
    long long b = 0;
    try {
      b = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || item.find_first_not_of(" \t", used) != std::string::npos || b < 1) {
      throw UsageError(fmt::format("--budgets: \"{}\" is not a positive token count (e.g. --budgets 64,128,256)", item));
    }
    if (std::find(out.begin(), out.end(), b) != out.end()) throw UsageError(fmt::format("--budgets: {} is listed twice", b));
    out.push_back(b);
  }
  return out;
}

// A folder name for a --methods entry at a budget: "snapkv_b128", "snapkv+ripple@ratio=4_b128", "full".
std::string variant_folder(const std::string& text, const CompressionSpec& spec) {
  std::string name;
  for (char c : text) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '=' || c == '@' || c == '_';
    name += ok ? c : (c == ':' ? '+' : '_');
  }
  if (spec.selector != "full") name += fmt::format("_b{}", spec.budget);
  return name;
}

}  // namespace

void add_method_grid_options(po::options_description& desc, std::string& methods, std::string& budgets) {
  desc.add_options()
      ("methods", po::value<std::string>(&methods)->default_value(""),
       "a grid in one call, each sample prefilled once for all: comma-separated methods (presets full snapkv "
       "pyramidkv streamingllm h2o cake squeeze ripple random knorm, or selector:allocator[@key=value,...]); "
       "each method x budget writes <out>/<method>_b<budget>/ (instead of --selector/--allocator/--budget)")
      ("budgets", po::value<std::string>(&budgets)->default_value(""), "with --methods: comma-separated budgets");
}

std::vector<PlannedVariant> plan_variants(const MethodArgs& single, const std::string& methods,
                                          const std::string& budgets_csv, const fs::path& out) {
  std::vector<PlannedVariant> plan;
  const bool grid = !methods.empty();
  if (grid) {
    const MethodArgs defaults;
    if (single.selector != defaults.selector || single.allocator != defaults.allocator || single.budget != 0 ||
        !single.method_opts.empty() || !std::isnan(single.ratio)) {
      throw UsageError("--methods gives the methods of a grid: drop --selector, --allocator, --budget, --method-opt "
                       "and --ratio (write options into each method, e.g. snapkv@window=16, ripple@ratio=4)");
    }
    const auto texts = split_methods(methods);
    const auto budgets = parse_budget_list(budgets_csv);
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
  for (auto& p : plan) p.dir = grid ? out / variant_folder(p.text, p.spec) : out;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (plan[i].dir == plan[j].dir) {
        throw UsageError(fmt::format("--methods: {} and {} would share the folder {}", plan[j].text, plan[i].text,
                                     plan[i].dir.string()));
      }
    }
  }
  return plan;
}

}  // namespace ripplekv::cli
