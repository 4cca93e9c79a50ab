#include "eval/experiments/paired_comparison.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace ripplekv::experiments {
namespace {

bool is_ripple(const LongBenchResult& r) { return r.id.allocator == "ripple"; }

// b's samples in a's order, task by task; nullopt when a task's sample ids differ.
std::optional<std::vector<std::vector<double>>> aligned(const LongBenchResult& a, const LongBenchResult& b) {
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
  if (!groups) return std::nullopt;
  return bootstrap_mean_interval(*groups, options);
}

std::vector<ResultTable> paired_difference_tables(const std::vector<LongBenchResult>& runs,
                                                  const BootstrapOptions& options) {
  std::vector<ResultTable> tables;
  for (const auto& model : models_of(runs)) {
    const auto [mine, labels] = runs_of_model(runs, model);
    std::map<int64_t, std::vector<std::size_t>> by_budget;
    for (std::size_t i = 0; i < mine.size(); ++i) {
      if (!mine[i]->id.full && !mine[i]->samples.empty()) by_budget[mine[i]->id.budget].push_back(i);
    }
    ResultTable t;
    t.title = fmt::format("RippleKV minus the best baseline, paired on the same samples: {}", model);
    t.label_headers = {"Method", "Budget", "Best baseline", "Verdict"};
    t.columns = {{"avg_difference", "Avg difference", "", Better::kNone},
                 {"ci_lo", "CI low", "", Better::kNone},
                 {"ci_hi", "CI high", "", Better::kNone}};
    t.decimals = 2;
    for (const auto& [budget, members] : by_budget) {
      std::optional<std::size_t> best;
      for (auto i : members) {
        if (is_ripple(*mine[i]) || !mine[i]->avg) continue;
        if (!best || *mine[i]->avg > *mine[*best]->avg) best = i;
      }
      if (!best) continue;
      TableBlock block{fmt::format("KV budget {} tokens per layer", budget), {}};
      for (auto i : members) {
        if (!is_ripple(*mine[i])) continue;
        TableRow row;
        row.labels = {labels[i], std::to_string(budget), labels[*best], "different samples"};
        row.source = mine[i]->dir.string();
        const auto b = aligned(*mine[i], *mine[*best]);
        if (b) {
          const auto d = bootstrap_paired_difference(*sample_groups(*mine[i]), *b, options);
          row.values = {d.estimate, d.lo, d.hi};
          row.labels[3] = d.contains_zero() ? "tie" : (d.lo > 0 ? "win" : "loss");
        } else {
          row.values = {std::nullopt, std::nullopt, std::nullopt};
        }
        block.rows.push_back(std::move(row));
      }
      if (!block.rows.empty()) t.blocks.push_back(std::move(block));
    }
    if (t.blocks.empty()) continue;
    t.notes.push_back(fmt::format(
        "Avg difference: RippleKV's Avg minus the baseline's, both unrounded means of the task means. CI: {:.0f}% "
        "paired bootstrap over samples ({} resamples, each task resampled on its own); an interval that holds 0 is a "
        "tie. Best baseline: the compressed run with the highest Avg at that budget, RippleKV runs excluded.",
        options.level * 100, options.resamples));
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace ripplekv::experiments
