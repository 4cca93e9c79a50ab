// `ripplekv allocate`: per-layer budgets from a sensitivity profile for one or more ratios.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <numeric>
#include <sstream>

#include "eval/cli/command.h"
#include "core/ripple/budget_mapper.h"
#include "core/ripple/ripple_options.h"
#include "core/ripple/sensitivity_profile.h"

namespace ripplekv::cli {

int run_allocate(const std::vector<std::string>& args) {
  std::string profile_path, ratios_s = "4", normalize = "minmax", score = ripple_option_default("score"), out;
  int64_t budget = 0, layers_min = 0, prompt_len = 0;
  // The score's choices are the ripple allocator's, declared once in core/ripple/ripple_options.
  const auto& specs = ripple_option_specs();
  const auto score_spec = std::find_if(specs.begin(), specs.end(), [](const OptionSpec& s) { return s.name == "score"; });
  const std::string score_help = "profile statistic, " + option_kind_text(*score_spec);
  po::options_description desc;
  desc.add_options()("profile", po::value<std::string>(&profile_path)->required(), "sensitivity profile JSON")(
      "budget", po::value<int64_t>(&budget)->required(), "average tokens per layer (total = layers x budget)")(
      "ratio", po::value<std::string>(&ratios_s)->default_value(ratios_s), "ratio r >= 1, or a list: 1,2,4,8")(
      "layers-min", po::value<int64_t>(&layers_min)->default_value(0),
      "tokens every layer keeps at least (the selector's sinks + window)")(
      "prompt-len", po::value<int64_t>(&prompt_len)->default_value(0),
      "prompt length: at most this many per layer (0 = no upper clamp)")(
      "normalize", po::value<std::string>(&normalize)->default_value(normalize), "minmax | rank")(
      "score", po::value<std::string>(&score)->default_value(score), score_help.c_str())(
      "out", po::value<std::string>(&out)->default_value(""), "also write the budgets as JSON");
  po::variables_map vm;
  if (!parse_options("allocate", args, desc, vm)) return 0;
  if (!out.empty()) require_out_file(out);
  if (budget < 1 || budget > (int64_t{1} << 40)) {
    throw UsageError(fmt::format("--budget {}: must be between 1 and 2^40 tokens per layer", budget));
  }
  if (layers_min < 0) throw UsageError(fmt::format("--layers-min {}: must be >= 0", layers_min));
  if (prompt_len < 0) throw UsageError(fmt::format("--prompt-len {}: must be >= 0 (0 = no upper clamp)", prompt_len));
  const auto profile = read_profile_json(profile_path);
  std::vector<double> scores;
  try {
    scores = profile.scores(score);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--score {} with --profile {}: {}", score, profile_path, e.what()));
  }
  const int64_t L = static_cast<int64_t>(scores.size());
  const int64_t max_per_layer = prompt_len > 0 ? prompt_len : L * budget;
  std::vector<double> ratios;
  std::stringstream ss(ratios_s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    double r = 0;
    try {
      std::size_t used = 0;
      r = std::stod(item, &used);
      if (item.find_first_not_of(" \t", used) != std::string::npos) throw std::invalid_argument(item);
    } catch (const std::exception&) {
      throw UsageError(fmt::format("--ratio {}: \"{}\" is not a number (give r or a list r1,r2,...)", ratios_s, item));
    }
    if (!(r >= 1) || !std::isfinite(r)) {
      throw UsageError(fmt::format("--ratio {}: {} must be a finite number >= 1 (1 = uniform)", ratios_s, item));
    }
    ratios.push_back(r);
  }
  BudgetMapperOptions o;
  o.normalization = parse_normalization(normalize);
  nlohmann::json j = {{"profile", profile_path}, {"budget", budget}, {"normalize", normalize}, {"score", score},
                      {"allocations", nlohmann::json::array()}};
  std::cout << "| layer | " << score << " KL |";
  for (double r : ratios) std::cout << fmt::format(" r={:g} |", r);
  std::cout << "\n|---|---|";
  for (size_t i = 0; i < ratios.size(); ++i) std::cout << "---|";
  std::cout << "\n";
  std::vector<std::vector<int64_t>> all;
  for (double r : ratios) {
    o.ratio = r;
    all.push_back(map_budgets(scores, budget, layers_min, max_per_layer, o));
    auto m = exponential_multipliers(scores, o);
    j["allocations"].push_back({{"ratio", r}, {"budgets", all.back()}, {"multipliers", m}});
  }
  for (int64_t l = 0; l < L; ++l) {
    std::cout << fmt::format("| {} | {:.4g} |", l, scores[l]);
    for (const auto& b : all) std::cout << fmt::format(" {} |", b[l]);
    std::cout << "\n";
  }
  std::cout << "| total | |";
  for (const auto& b : all) std::cout << fmt::format(" {} |", std::accumulate(b.begin(), b.end(), int64_t{0}));
  std::cout << "\n";
  if (!out.empty()) {
    std::ofstream f(out);
    if (!f) throw std::runtime_error(fmt::format("{}: cannot write", out));
    f << j.dump(2) << "\n";
    f.flush();
    if (!f) throw std::runtime_error(fmt::format("--out {}: writing failed (disk full?)", out));
  }
  return 0;
}

}  // namespace ripplekv::cli
