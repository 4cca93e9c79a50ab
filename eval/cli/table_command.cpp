// `ripplekv table --runs DIR... --out DIR`: the results of `ripplekv longbench` and
// `ripplekv fidelity` runs (sweep folders or single runs) as the tables papers print
// (eval/experiments/paper_tables.h), in Markdown, CSV and LaTeX, with published reference
// rows beside ours (--published), and summary.json for scripts/plot_results.py; --pool makes
// one row of runs on different samples (eval/experiments/pooled_runs.h).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "eval/cli/command.h"
#include "core/compress/method_presets.h"
#include "eval/experiments/paper_tables.h"
#include "eval/experiments/published_results.h"
#include "eval/experiments/paired_comparison.h"
#include "eval/experiments/pooled_runs.h"
#include "eval/experiments/run_results.h"

namespace ripplekv::cli {
namespace {

namespace fs = std::filesystem;
using namespace ripplekv::experiments;

std::string preset_name(const std::string& selector, const std::string& allocator) {
  for (const auto& p : method_presets()) {
    if (selector == p.selector && allocator == p.allocator) return p.name;
  }
  return selector + ":" + allocator;
}

std::optional<std::pair<std::string, std::string>> preset_parts(const std::string& name) {
  for (const auto& p : method_presets()) {
    if (name == p.name) return std::make_pair(std::string(p.selector), std::string(p.allocator));
  }
  return std::nullopt;
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", path.string()));
  std::cerr << "wrote " << path.string() << "\n";
}

}  // namespace

int run_table(const std::vector<std::string>& args) {
  std::vector<std::string> runs;
  std::string published, published_model, out;
  bool pool = false, across_tasks = false;
  int resamples = BootstrapOptions{}.resamples;
  po::options_description desc;
  desc.add_options()("runs", po::value<std::vector<std::string>>(&runs)->multitoken()->required(),
                     "folders of results: sweep folders, or `longbench` / `fidelity` --out folders (searched below)")(
      "published", po::value<std::string>(&published)->default_value(""),
      "published LongBench numbers to print beside ours (e.g. configs/published/longbench.json)")(
      "published-model", po::value<std::string>(&published_model)->default_value(""),
      "the model whose published numbers to use, when the file has several")(
      "pool", po::bool_switch(&pool),
      "make one row of runs of the same method and budget on different samples (RULER runs of two --seed "
      "values, LongBench runs over different samples): scores and intervals over all their samples; the same "
      "sample in two runs is an error")(
      "pool-across-tasks", po::bool_switch(&across_tasks),
      "with --pool: runs of one method on other tasks join its row too (RULER runs of 6 tasks and of the other 5), "
      "which then covers every task they ran; a task's score is the mean of its samples, Avg the mean of the "
      "task scores")(
      "resamples", po::value<int>(&resamples)->default_value(resamples),
      "bootstrap resamples of every interval and paired verdict (e.g. 100000 for a paper table: an interval "
      "end near 0 then no longer depends on the draw)")(
      "out", po::value<std::string>(&out)->required(),
      "folder for longbench.{md,csv,tex}, paired.*, fidelity.*, fidelity_paired.* and summary.json");
  po::variables_map vm;
  if (!parse_options("table", args, desc, vm)) return 0;
  require_out_folder(out);
  if (resamples < 100 || resamples > 10'000'000) {
    throw UsageError(fmt::format("--resamples {}: give 100 to 10000000 bootstrap resamples (default {})", resamples,
                                 BootstrapOptions{}.resamples));
  }
  BootstrapOptions bootstrap;
  bootstrap.resamples = resamples;
  if (across_tasks && !pool) {
    throw UsageError("--pool-across-tasks pools runs of other tasks into one row; it needs --pool");
  }
  if (!published_model.empty() && published.empty()) {
    throw UsageError("--published-model needs --published FILE (the published rows to pick that model's from)");
  }

  std::vector<fs::path> roots(runs.begin(), runs.end());
  auto gathered = gather_results(roots, preset_name, preset_parts);
  std::vector<std::string> uneven;
  if (pool) {
    auto pooled = pool_sample_sets(gathered.longbench, across_tasks);
    gathered.longbench = std::move(pooled.runs);
    uneven = std::move(pooled.uneven);
    for (const auto& line : uneven) {
      std::cerr << "warning: " << line << "; a RippleKV row is paired with the best baseline on its own samples\n";
    }
  }
  for (const auto& line : gathered.incomplete) std::cerr << "warning: left out, not complete: " << line << "\n";
  if (gathered.longbench.empty() && gathered.fidelity.empty()) {
    throw std::runtime_error("ripplekv table: no complete results under the --runs folders");
  }
  std::vector<PublishedEntry> pub;
  if (!published.empty()) {
    if (gathered.longbench.empty()) {
      throw UsageError("--published: published numbers are LongBench scores, and there are no LongBench runs here");
    }
    pub = select_published(read_published_file(published), published_model, published);
  }
  const auto lb = longbench_tables(gathered.longbench, pub, bootstrap);
  const auto fid = fidelity_tables(gathered.fidelity, bootstrap);
  const auto paired = paired_difference_tables(gathered.longbench, bootstrap);
  const auto fid_paired = paired_fidelity_tables(gathered.fidelity, bootstrap);

  const fs::path dir(out);
  fs::create_directories(dir);
  nlohmann::ordered_json config;
  config["ripplekv_table"] = 1;
  config["runs"] = runs;
  config["published"] = published;
  config["published_model"] = published_model;
  config["out"] = out;
  config["pool"] = pool;
  if (across_tasks) config["pool_across_tasks"] = true;
  if (resamples != BootstrapOptions{}.resamples) config["resamples"] = resamples;
  if (pool) config["uneven_samples"] = uneven;
  config["longbench_runs"] = gathered.longbench.size();
  config["fidelity_runs"] = gathered.fidelity.size();
  config["left_out"] = gathered.incomplete;
  write_text(dir / "table_config.json", config.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  // <name>.md, .csv and .tex, and the Markdown on stdout; nothing for no tables.
  const auto write_tables = [&](const std::string& name, const std::vector<ResultTable>& tables) {
    if (tables.empty()) return;
    write_text(dir / (name + ".md"), table_markdown(tables));
    write_text(dir / (name + ".csv"), table_csv(tables));
    write_text(dir / (name + ".tex"), table_latex(tables));
    std::cout << table_markdown(tables);
  };
  write_tables("longbench", lb);
  write_tables("paired", paired);
  write_tables("fidelity", fid);
  write_tables("fidelity_paired", fid_paired);
  write_text(dir / "summary.json", results_summary(gathered, bootstrap).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return 0;
}

}  // namespace ripplekv::cli
