#include "eval/experiments/paper_tables.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "eval/longbench_score.h"
#include "eval/longbench_tasks.h"
#include "eval/experiments/paired_comparison.h"

namespace ripplekv::experiments {
namespace {

// The order methods are listed in within a block (the preset table's), others after.
int method_rank(const std::string& method) {
  static const std::vector<std::string> order = {"full",    "h2o",    "streamingllm", "snapkv", "pyramidkv",
                                                 "squeeze", "cake",   "ripple",       "ripple_prompt", "random", "knorm"};
  const auto it = std::find(order.begin(), order.end(), method);
  return static_cast<int>(it - order.begin());
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::string budget_text(const RunIdentity& id) { return id.full ? "full" : std::to_string(id.budget); }

std::string block_title(bool full, int64_t budget) {
  return full ? "Full cache" : fmt::format("KV budget {} tokens per layer", budget);
}

// A row with its place: block (full first, then budgets ascending), method rank, label.
struct PlacedRow {
  bool full;
  int64_t budget;
  int published;  // published rows first in their block
  int rank;
  std::string label;
  TableRow row;
};

std::vector<TableBlock> place_rows(std::vector<PlacedRow> rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const PlacedRow& a, const PlacedRow& b) {
    if (a.full != b.full) return a.full;
    if (a.budget != b.budget) return a.budget < b.budget;
    if (a.published != b.published) return a.published > b.published;
    if (a.rank != b.rank) return a.rank < b.rank;
    return a.label < b.label;
  });
  std::vector<TableBlock> blocks;
  for (auto& r : rows) {
    const auto title = block_title(r.full, r.budget);
    if (blocks.empty() || blocks.back().title != title) blocks.push_back({title, {}});
    blocks.back().rows.push_back(std::move(r.row));
  }
  return blocks;
}

void check_unique_rows(const std::vector<PlacedRow>& rows, const std::vector<std::string>& dirs,
                       const std::string& model) {
  std::map<std::pair<std::string, std::string>, std::size_t> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].row.kind == RowKind::kPublished) continue;
    const auto key = std::make_pair(rows[i].row.labels[0], rows[i].row.labels[1]);
    const auto [it, fresh] = seen.emplace(key, i);
    if (!fresh) {
      throw std::invalid_argument(fmt::format("{}: two runs would be the same row ({}, budget {}):\n  {}\n  {}\npass "
                                              "only one of them to `ripplekv table`, or --pool to make one row of "
                                              "runs on different samples (e.g. two RULER seeds)",
                                              model, key.first, key.second, dirs[it->second], dirs[i]));
    }
  }
}

// One model's runs as placed rows (label, budget, kind, source), with their folders;
// `values` gives each run's numbers, `interval` its row's confidence interval (or nullopt).
template <class Run, class Values, class IntervalOf>
void add_run_rows(const std::vector<Run>& runs, const std::string& model, const Values& values,
                  std::vector<PlacedRow>& rows, std::vector<std::string>& dirs, const IntervalOf& interval) {
  const auto [mine, labels] = runs_of_model(runs, model);
  for (std::size_t i = 0; i < mine.size(); ++i) {
    const auto& r = *mine[i];
    TableRow row;
    row.labels = {labels[i], budget_text(r.id)};
    row.values = values(r);
    row.interval = interval(r);
    row.kind = r.id.full ? RowKind::kFullCache : RowKind::kRun;
    row.source = run_source(r);
    rows.push_back({r.id.full, r.id.budget, 0, method_rank(r.id.method), labels[i], std::move(row)});
    dirs.push_back(run_source(r));
  }
}

}  // namespace

std::string task_abbreviation(const std::string& task) {
  static const std::map<std::string, std::string> names = {
      {"narrativeqa", "NrtvQA"},   {"qasper", "Qasper"},     {"multifieldqa_en", "MF-en"},
      {"hotpotqa", "HotpotQA"},    {"2wikimqa", "2WikiMQA"}, {"musique", "Musique"},
      {"gov_report", "GovReport"}, {"qmsum", "QMSum"},       {"multi_news", "MultiNews"},
      {"trec", "TREC"},            {"triviaqa", "TriviaQA"}, {"samsum", "SAMSum"},
      {"passage_count", "PCount"}, {"passage_retrieval_en", "PRe"}, {"lcc", "Lcc"},
      {"repobench-p", "RB-P"},
  };
  const auto it = names.find(task);
  return it == names.end() ? task : it->second;
}

std::vector<ResultTable> longbench_tables(const std::vector<LongBenchResult>& runs,
                                          const std::vector<PublishedEntry>& published, const BootstrapOptions& bootstrap) {
  if (runs.empty()) return {};
  const auto& tasks = runs.front().tasks;
  for (const auto& r : runs) {
    if (r.tasks != tasks) {
      throw std::invalid_argument(fmt::format(
          "results of different task sets cannot share a table:\n  {}: {}\n  {}: {}\nrun the same tasks, or make "
          "one table per task set",
          runs.front().dir.string(), join(tasks), r.dir.string(), join(r.tasks)));
    }
  }
  const auto models = models_of(runs);
  if (!published.empty() && models.size() > 1) {
    throw std::invalid_argument(fmt::format("published rows go beside the runs of one model; these runs are of {} "
                                            "models ({}): table each model's runs on its own",
                                            models.size(), join(models)));
  }
  for (const auto& p : published) {
    std::vector<std::string> have;
    for (const auto& [task, score] : p.scores) have.push_back(task);
    std::sort(have.begin(), have.end());
    std::vector<std::string> want = tasks;
    std::sort(want.begin(), want.end());
    if (have != want) {
      throw std::invalid_argument(fmt::format(
          "published {} {} ({}) covers other tasks than the runs:\n  published: {}\n  runs:      {}\nthe Avg column "
          "would compare different things: run the published tasks (--tasks all), or drop --published",
          p.model, p.method, p.budget ? std::to_string(*p.budget) : "full", join(have), join(want)));
    }
  }

  // `ripplekv ruler` / `needle` runs name their columns "<task>@<length>", grouped by length.
  const bool synthetic = std::any_of(tasks.begin(), tasks.end(), [](const std::string& t) { return t.find('@') != std::string::npos; });
  std::vector<TableColumn> columns;
  for (const auto& t : tasks) {
    const auto at = t.find('@');
    if (at != std::string::npos) {
      columns.push_back({t, t.substr(0, at), fmt::format("{} tokens", t.substr(at + 1)), Better::kHigher});
      continue;
    }
    const auto& task = eval::find_longbench_task(t);
    columns.push_back({t, task_abbreviation(t), std::string(eval::category_name(task.category)), Better::kHigher});
  }
  columns.push_back({"avg", "Avg", "", Better::kHigher});

  std::vector<ResultTable> tables;
  for (const auto& model : models) {
    std::vector<PlacedRow> rows;
    std::vector<std::string> dirs;
    add_run_rows(runs, model, [&](const LongBenchResult& r) {
      std::vector<std::optional<double>> v;
      for (const auto& t : tasks) v.push_back(r.scores.at(t));
      v.push_back(r.avg);
      return v;
    }, rows, dirs, [&](const LongBenchResult& r) -> std::optional<std::pair<double, double>> {
      const auto ci = avg_interval(r, bootstrap);  // the Avg's bootstrap interval, for runs with per-sample scores
      if (!ci) return std::nullopt;
      return std::make_pair(ci->lo, ci->hi);
    });
    const bool intervals = std::any_of(rows.begin(), rows.end(), [](const PlacedRow& p) { return p.row.interval.has_value(); });
    for (const auto& p : published) {
      TableRow row;
      row.labels = {p.method, p.budget ? std::to_string(*p.budget) : "full"};
      std::vector<eval::TaskResult> scores;
      for (const auto& t : tasks) {
        row.values.push_back(p.scores.at(t));
        scores.push_back(eval::TaskResult{t, {}, p.scores.at(t), std::nullopt});
      }
      row.values.push_back(eval::average_score(scores));
      row.kind = RowKind::kPublished;
      row.source = fmt::format("{}, {}", p.model, p.source);
      rows.push_back({!p.budget, p.budget.value_or(0), 1, 0, p.method, std::move(row)});
      dirs.push_back(p.source);
    }
    check_unique_rows(rows, dirs, model);
    ResultTable t;
    t.title = fmt::format("{}: {} ({} task{})", synthetic ? "RULER / needle" : "LongBench", model, tasks.size(),
                          tasks.size() == 1 ? "" : "s");
    t.label_headers = {"Method", "Budget"};
    t.columns = columns;
    t.decimals = 2;
    t.blocks = place_rows(std::move(rows));
    t.notes.push_back(std::string(synthetic ? "Scores as RULER's evaluate.py computes them (needle: ROUGE-1 recall x 100 "
                                              "of the answer words)"
                                            : "Scores as LongBench's eval.py computes them") +
                      "; Avg is the mean of the task scores shown. Budget: cached prompt tokens per layer on average. "
                      "Bold: the best of our runs per column within a budget.");
    if (intervals) {
      t.interval_header = "Avg 95% CI";
      t.interval_key = "avg_ci95";
      t.notes.push_back(fmt::format("Avg {0:g}% CI: percentile bootstrap over samples ({1} resamples, each task resampled "
                                    "on its own); \"-\" for runs scored without per-sample scores or with one sample in a "
                                    "task.",
                                    bootstrap.level * 100, bootstrap.resamples));
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

std::vector<ResultTable> fidelity_tables(const std::vector<FidelityResult>& runs, const BootstrapOptions& bootstrap) {
  if (runs.empty()) return {};
  for (const auto& r : runs) {
    if (!r.settings.empty() && !runs.front().settings.empty() && r.settings != runs.front().settings) {
      throw std::invalid_argument(fmt::format(
          "fidelity results over different texts cannot share a table:\n  {}: {}\n  {}: {}\nmake one table per "
          "setting",
          runs.front().dir.string(), runs.front().settings, r.dir.string(), r.settings));
    }
  }
  std::vector<ResultTable> tables;
  for (const auto& model : models_of(runs)) {
    std::vector<PlacedRow> rows;
    std::vector<std::string> dirs;
    add_run_rows(runs, model, [](const FidelityResult& r) {
      return std::vector<std::optional<double>>{r.kl_mean, r.kl_p90, r.kl_max, r.top1, r.kv_fraction};
    }, rows, dirs, [&](const FidelityResult& r) -> std::optional<std::pair<double, double>> {
      const auto ci = kl_interval(r, bootstrap);  // bootstrap over texts, for runs with per-text values
      if (!ci) return std::nullopt;
      return std::make_pair(ci->lo, ci->hi);
    });
    const bool intervals = std::any_of(rows.begin(), rows.end(), [](const PlacedRow& p) { return p.row.interval.has_value(); });
    check_unique_rows(rows, dirs, model.empty() ? "fidelity" : model);
    ResultTable t;
    t.title = fmt::format("Fidelity to the full cache: {}", model.empty() ? "(model not recorded)" : model);
    t.label_headers = {"Method", "Budget"};
    t.columns = {{"kl_mean", "KL mean", "KL to the full cache", Better::kLower},
                 {"kl_p90", "KL p90", "KL to the full cache", Better::kLower},
                 {"kl_max", "KL max", "KL to the full cache", Better::kLower},
                 {"top1_agreement", "Top-1 agree", "", Better::kHigher},
                 {"kv_fraction", "KV kept", "", Better::kNone}};
    t.decimals = 4;
    if (intervals) {
      t.interval_header = "KL mean 95% CI";
      t.interval_key = "kl_mean_ci95";
    }
    t.blocks = place_rows(std::move(rows));
    const auto& settings = std::find_if(runs.begin(), runs.end(), [&](const FidelityResult& r) {
                             return r.model == model;
                           })->settings;
    if (!settings.empty()) t.notes.push_back("Texts: " + settings + ".");
    t.notes.push_back("Bold: the best of our runs per column within a budget (lowest KL, highest top-1 agreement).");
    if (intervals) {
      t.notes.push_back(fmt::format("KL mean {0:g}% CI: percentile bootstrap over texts ({1} resamples of the per-text "
                                    "mean KL); \"-\" for runs without per-text values (fidelity_texts.csv).",
                                    bootstrap.level * 100, bootstrap.resamples));
    }
    tables.push_back(std::move(t));
  }
  return tables;
}

}  // namespace ripplekv::experiments
