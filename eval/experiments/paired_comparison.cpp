#include "eval/experiments/paired_comparison.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace ripplekv::experiments {
namespace {

// A run that allocates with RippleKV (a stored profile, or each prompt measured): its
// allocator, or the preset of that name (a fidelity run's method text).
template <class Run>
bool is_ripple(const Run& r) {
  for (const char* name : {"ripple", "ripple_prompt"}) {
    if (r.id.allocator == name || r.id.method == name) return true;
  }
  return false;
}

// b's samples in a's order, task by task; nullopt when the task sets or a task's sample ids
// differ (b scored on more tasks than a would be chosen as best baseline by an Avg a is not on).
std::optional<std::vector<std::vector<double>>> aligned(const LongBenchResult& a, const LongBenchResult& b) {
  if (a.tasks.size() != b.tasks.size()) return std::nullopt;
  std::vector<std::vector<double>> out;
  for (const auto& t : a.tasks) {
    const auto& sa = a.samples.at(t);
    const auto it = b.samples.find(t);
    if (it == b.samples.end() || it->second.ids.size() != sa.ids.size()) return std::nullopt;
    std::map<std::string, double> by_id;
    for (std::size_t i = 0; i < it->second.ids.size(); ++i) by_id[it->second.ids[i]] = it->second.scores[i];
    std::vector<double> g;
    for (const auto& id : sa.ids) {
      const auto found = by_id.find(id);
      if (found == by_id.end()) return std::nullopt;
      g.push_back(found->second);
    }
    out.push_back(std::move(g));
  }
  return out;
}

// Whether a stratified bootstrap over `groups` can vary: every task has at least 2 samples.
// With one sample in a task that task's mean never moves, and with one in every task the
// interval collapses to the estimate, which must not read as a win or a loss.
bool resamplable(const std::vector<std::vector<double>>& groups) {
  return std::all_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() >= 2; });
}

// What a paired table compares: the metric (its name and direction) and how a run gives it.
struct PairedMetric {
  std::string key, header;  // the difference column, e.g. "avg_difference", "Avg difference"
  bool higher_is_better = true;
  std::string unit_of_resampling;  // "samples" or "texts", for the title and notes
  std::string note;
};

// The shared shape of the paired tables: for each model and budget, every ripple-allocator run
// minus the best other compressed run (by `score`), paired on the same units. `groups(run)`
// gives a run's units (nullopt: none), `align(a, b)` b's units in a's order (nullopt: not the
// same units).
template <class Run, class Score, class Groups, class Align>
std::vector<ResultTable> paired_tables(const std::vector<Run>& runs, const PairedMetric& metric, const Score& score,
                                       const Groups& groups, const Align& align, const BootstrapOptions& options) {
  std::vector<ResultTable> tables;
  for (const auto& model : models_of(runs)) {
    // Named, not a structured binding: the lambdas below use `mine`, and C++17 does not let a
    // lambda capture a structured binding (GCC allows it, clang before 16 does not).
    const auto model_runs = runs_of_model(runs, model);
    const auto& mine = model_runs.runs;
    const auto& labels = model_runs.labels;
    std::map<int64_t, std::vector<std::size_t>> by_budget;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (!mine[i]->id.full && groups(*mine[i])) by_budget[mine[i]->id.budget].push_back(i);
    }
    ResultTable t;
    t.title = fmt::format("RippleKV minus the best baseline, paired on the same {}: {}", metric.unit_of_resampling,
                          model.empty() ? "(model not recorded)" : model);
    t.label_headers = {"Method", "Budget", "Best baseline", "Verdict", "Uniform, same selector", "Verdict"};
    t.columns = {{metric.key, metric.header, "vs the best baseline", Better::kNone},
                 {"ci_lo", "CI low", "vs the best baseline", Better::kNone},
                 {"ci_hi", "CI high", "vs the best baseline", Better::kNone},
                 {"uniform_" + metric.key, metric.header, "vs uniform, same selector", Better::kNone},
                 {"uniform_ci_lo", "CI low", "vs uniform, same selector", Better::kNone},
                 {"uniform_ci_hi", "CI high", "vs uniform, same selector", Better::kNone}};
    t.decimals = metric.higher_is_better ? 2 : 4;
    const auto better = [&](double x, double y) { return metric.higher_is_better ? x > y : x < y; };
    for (const auto& [budget, members] : by_budget) {
      std::optional<std::size_t> best;
      for (auto i : members) {
        const auto s = score(*mine[i]);
        if (is_ripple(*mine[i]) || !s) continue;
        if (!best || better(*s, *score(*mine[*best]))) best = i;
      }
      if (!best) continue;
      TableBlock block{fmt::format("KV budget {} tokens per layer", budget), {}};
      // The run minus `other` on the same units: the verdict and three values (nullopt when
      // the two were scored on different units).
      const auto compare = [&](std::size_t i, std::size_t other, TableRow& row, std::size_t verdict_label) {
        const auto b = align(*mine[i], *mine[other]);
        if (!b) {
          row.labels[verdict_label] = fmt::format("different {}", metric.unit_of_resampling);
          row.values.insert(row.values.end(), {std::nullopt, std::nullopt, std::nullopt});
          return;
        }
        const auto a = *groups(*mine[i]);
        if (!resamplable(a)) {  // a task with one sample: every resample is the data itself
          row.labels[verdict_label] = "no interval (a task has 1 sample)";
          row.values.insert(row.values.end(), {mean_of_task_means(a) - mean_of_task_means(*b), std::nullopt, std::nullopt});
          return;
        }
        const auto d = bootstrap_paired_difference(a, *b, options);
        row.values.insert(row.values.end(), {d.estimate, d.lo, d.hi});
        const bool above = d.lo > 0;
        row.labels[verdict_label] = d.contains_zero() ? "tie" : (above == metric.higher_is_better ? "win" : "loss");
      };
      for (auto i : members) {
        if (!is_ripple(*mine[i])) continue;
        // The best baseline scored on this run's units (pooled runs may cover more samples
        // than some baselines); the best overall, "different ...", when none is.
        std::optional<std::size_t> best_here;
        for (auto j : members) {
          const auto s = score(*mine[j]);
          if (is_ripple(*mine[j]) || !s || !align(*mine[i], *mine[j])) continue;
          if (!best_here || better(*s, *score(*mine[*best_here]))) best_here = j;
        }
        const auto baseline = best_here ? *best_here : *best;
        TableRow row;
        row.labels = {labels[i], std::to_string(budget), labels[baseline], "", "-", "-"};
        row.source = run_source(*mine[i]);
        compare(i, baseline, row, 3);
        // The same selector with uniform layer budgets isolates what the allocation does.
        std::optional<std::size_t> twin;
        for (auto j : members) {
          const auto& r = *mine[j];
          if (!is_ripple(r) && r.id.allocator == "uniform" && !r.id.selector.empty() &&
              r.id.selector == mine[i]->id.selector) {
            twin = j;
          }
        }
        if (twin) {
          row.labels[4] = labels[*twin];
          compare(i, *twin, row, 5);
        } else {
          row.values.insert(row.values.end(), {std::nullopt, std::nullopt, std::nullopt});
        }
        block.rows.push_back(std::move(row));
      }
      if (!block.rows.empty()) t.blocks.push_back(std::move(block));
    }
    if (t.blocks.empty()) continue;
    t.notes.push_back(fmt::format("{} Uniform, same selector: the run with RippleKV's selector and uniform layer budgets "
                                  "(SnapKV for RippleKV), which isolates the allocation. CI: {:.0f}% paired bootstrap "
                                  "over {} ({} resamples); an interval that holds 0 is a tie.",
                                  metric.note, options.level * 100, metric.unit_of_resampling, options.resamples));
    tables.push_back(std::move(t));
  }
  return tables;
}

// A fidelity run's per-text mean KL as one bootstrap group, or nullopt with fewer than 2 texts.
std::optional<std::vector<std::vector<double>>> text_groups(const FidelityResult& run) {
  if (run.text_kl.size() < 2) return std::nullopt;
  return std::vector<std::vector<double>>{run.text_kl};
}

}  // namespace

std::optional<std::vector<std::vector<double>>> sample_groups(const LongBenchResult& run) {
  if (run.samples.empty()) return std::nullopt;
  std::vector<std::vector<double>> groups;
  for (const auto& t : run.tasks) {
    const auto it = run.samples.find(t);
    if (it == run.samples.end() || it->second.scores.empty()) return std::nullopt;
    groups.push_back(it->second.scores);
  }
  return groups;
}

std::optional<Interval> avg_interval(const LongBenchResult& run, const BootstrapOptions& options) {
  const auto groups = sample_groups(run);
  if (!groups || !resamplable(*groups)) return std::nullopt;
  return bootstrap_mean_interval(*groups, options);
}

std::optional<Interval> kl_interval(const FidelityResult& run, const BootstrapOptions& options) {
  const auto groups = text_groups(run);
  if (!groups) return std::nullopt;
  return bootstrap_mean_interval(*groups, options);
}

std::vector<ResultTable> paired_difference_tables(const std::vector<LongBenchResult>& runs,
                                                  const BootstrapOptions& options) {
  const PairedMetric metric{"avg_difference", "Avg difference", true, "samples",
                            "Avg difference: RippleKV's Avg minus the baseline's, both unrounded means of the task "
                            "means; best baseline: the compressed run with the highest Avg at that budget among those "
                            "scored on the same samples, RippleKV runs excluded. Each task is resampled on its own."};
  return paired_tables(
      runs, metric, [](const LongBenchResult& r) { return r.avg; }, sample_groups,
      [](const LongBenchResult& a, const LongBenchResult& b) { return aligned(a, b); }, options);
}

std::vector<ResultTable> paired_fidelity_tables(const std::vector<FidelityResult>& runs,
                                                const BootstrapOptions& options) {
  const PairedMetric metric{"kl_difference", "KL mean difference", false, "texts",
                            "KL mean difference: RippleKV's mean KL to the full cache minus the baseline's (negative: "
                            "RippleKV is closer); best baseline: the compressed run with the lowest KL mean at that "
                            "budget among those on the same texts, RippleKV runs excluded."};
  return paired_tables(
      runs, metric, [](const FidelityResult& r) { return std::optional<double>(r.kl_mean); }, text_groups,
      [](const FidelityResult& a, const FidelityResult& b) -> std::optional<std::vector<std::vector<double>>> {
        if (a.settings != b.settings || a.text_kl.size() != b.text_kl.size()) return std::nullopt;
        return std::vector<std::vector<double>>{b.text_kl};
      },
      options);
}

}  // namespace ripplekv::experiments
