// Gathering finished runs for tables and plots: every `ripplekv longbench --out` folder
// (config.json + result.json) and `ripplekv fidelity --out` folder (fidelity.csv) under the
// given roots, with what each run was (from the sweep's sweep_run.json when a sweep made it,
// else from the run's own config), its scores and per-layer kept tokens. Torch-free.
#pragma once

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/experiments/bootstrap.h"
#include "eval/kept_tokens_log.h"
#include "eval/sample_scores.h"

namespace ripplekv::experiments {

struct RunIdentity {
  std::string method;  // the sweep's method name, or the preset name of selector x allocator
  std::string selector, allocator;
  bool full = false;   // full cache (no budget)
  int64_t budget = 0;
  std::map<std::string, std::string> options;  // policy options as given
  // Every policy option in force when the run was made, defaults included (config.json's
  // info.method_options, or a fidelity folder's methods_in_force); empty for runs written
  // before ripplekv recorded them, whose omitted options read as the current defaults.
  std::map<std::string, std::string> in_force;
};

struct LongBenchResult {
  std::filesystem::path dir;
  std::string model;               // the model's folder or file name
  RunIdentity id;
  std::vector<std::string> tasks;  // in the task table's order
  std::map<std::string, double> scores;
  std::optional<double> avg;       // mean of the task scores, rounded like eval.py
  eval::KeptTokensSummary kept;
  // Per-sample scores of every task (sample_scores.json), for confidence intervals; empty
  // when the run has no such file (scored by an older ripplekv) or it misses a task.
  eval::SampleScores samples;
  // Which samples a generated benchmark drew ("seed 43" for RULER samples generated from
  // --seed 43); "" when the samples are a data file's, named by their own ids.
  std::string sample_set;
  // How the run was made, apart from its samples and method: config.json's "run" without seed,
  // samples, data, tasks and method (model, tokenizer, dtype, device, chat template, ...).
  // Runs pool only when these are equal.
  nlohmann::json settings;
  // The run folders pooled into this result (eval/experiments/pooled_runs.h); empty when the
  // result is one run's.
  std::vector<std::filesystem::path> pooled_from;
};

struct FidelityResult {
  std::filesystem::path dir;
  std::string model;     // "" when the folder has no config.json
  std::string settings;  // the texts and lengths compared ("" when unknown)
  RunIdentity id;
  int64_t texts = 0, positions = 0;
  double kl_mean = 0, kl_p90 = 0, kl_max = 0, top1 = 0, kv_fraction = 0;
  // Per text (fidelity_texts.csv), in the order of the texts: mean KL and top-1 agreement;
  // empty when the run has no such file (made by an older ripplekv).
  std::vector<double> text_kl, text_top1;
};

struct GatheredResults {
  std::vector<LongBenchResult> longbench;
  std::vector<FidelityResult> fidelity;
  std::vector<std::string> incomplete;  // "dir: why", runs left out
};

// The preset name of a selector x allocator pair ("snapkv" x "pyramid" -> "pyramidkv"); the
// program passes one backed by the method preset table.
using MethodNamer = std::function<std::string(const std::string& selector, const std::string& allocator)>;

// The selector and allocator of a method preset name ("pyramidkv" -> snapkv x pyramid), or
// nullopt for a name that is not a preset; used for fidelity runs made outside a sweep, whose
// rows name only the method.
using MethodParts = std::function<std::optional<std::pair<std::string, std::string>>(const std::string& name)>;

// Walks each root (a run folder or any folder above run folders). Throws std::invalid_argument
// for a missing root, a root without any run, or a LongBench-E result (scored per length
// bucket, not tabled).
GatheredResults gather_results(const std::vector<std::filesystem::path>& roots, const MethodNamer& name_of,
                               const MethodParts& parts_of = {});

// How many per-sample scores a run has, over all its tasks (0 without sample_scores.json).
std::size_t sample_count(const LongBenchResult& run);

// The folder a table row names as its source: the run's, or the pooled runs' joined by " + ".
std::string run_source(const LongBenchResult& run);
inline std::string run_source(const FidelityResult& run) { return run.dir.string(); }

// "RippleKV" for "ripple", "FullKV" for "full", ...; other names as they are.
std::string method_display_name(const std::string& method);

// A run's policy options as they took effect: the catalog defaults of its selector and
// allocator (today's), overlaid by the options in force it recorded, overlaid by the options
// it was given. Two runs of one method are the same configuration when these are equal.
std::map<std::string, std::string> effective_options(const RunIdentity& id);

// Row labels: the method's display name, plus the policy options whose values differ between
// runs of the same model and method ("RippleKV (r=2)"); paths show their file name.
std::vector<std::string> run_labels(const std::vector<std::pair<std::string, RunIdentity>>& model_and_ids);

// The distinct models of `runs` (LongBenchResult or FidelityResult), in first-seen order.
template <class Run>
std::vector<std::string> models_of(const std::vector<Run>& runs) {
  std::vector<std::string> models;
  for (const auto& r : runs) {
    if (std::find(models.begin(), models.end(), r.model) == models.end()) models.push_back(r.model);
  }
  return models;
}

// One model's runs, in the runs' order, with their row labels (run_labels).
template <class Run>
struct ModelRuns {
  std::vector<const Run*> runs;
  std::vector<std::string> labels;
};

template <class Run>
ModelRuns<Run> runs_of_model(const std::vector<Run>& runs, const std::string& model) {
  ModelRuns<Run> out;
  std::vector<std::pair<std::string, RunIdentity>> ids;
  for (const auto& r : runs) {
    if (r.model != model) continue;
    ids.emplace_back(r.model, r.id);
    out.runs.push_back(&r);
  }
  out.labels = run_labels(ids);
  return out;
}

// summary.json for scripts/plot_results.py: every run with its model, method, label, budget,
// ratio, options, scores / fidelity figures and mean kept tokens per layer; the intervals with
// `bootstrap`'s resamples.
nlohmann::ordered_json results_summary(const GatheredResults& results, const BootstrapOptions& bootstrap = {});

}  // namespace ripplekv::experiments
