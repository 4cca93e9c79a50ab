#include "eval/experiments/pooled_runs.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>

#include "eval/longbench_score.h"
#include "eval/python_numeric.h"

namespace ripplekv::experiments {
namespace {

// What makes two runs one row: model, method, budget, options and task columns (none when
// pooling across tasks).
using RowKey = std::tuple<std::string, std::string, std::string, std::string, bool, int64_t,
                          std::map<std::string, std::string>, std::vector<std::string>>;

RowKey row_key(const LongBenchResult& r, bool across_tasks) {
  // Options as they took effect, so runs that left an option out under different defaults
  // stay apart, and a run that gave an option at its default pools with one that left it out.
  return {r.model,     r.id.method, r.id.selector, r.id.allocator, r.id.full, r.id.budget, effective_options(r.id),
          across_tasks ? std::vector<std::string>{} : r.tasks};
}

std::string qualified(const LongBenchResult& r, const std::string& id) {
  return r.sample_set.empty() ? id : r.sample_set + "/" + id;
}

// One sample of one task column, as a key of the sets below.
std::string sample_key(const std::string& task, const std::string& id) { return task + "\n" + id; }

// What samples a row covers, for the warning on uneven rows: "seed 42 + seed 43, 110 samples".
std::string coverage_text(const LongBenchResult& r) {
  return fmt::format("{}{} samples", r.sample_set.empty() ? "" : r.sample_set + ", ", sample_count(r));
}

// A pooled row's task scores (the mean of its samples, rounded as the scorers round) and Avg.
void rescore(LongBenchResult& r) {
  std::vector<eval::TaskResult> scores;
  for (const auto& task : r.tasks) {
    const auto& column = r.samples.at(task);
    double sum = 0;
    for (double s : column.scores) sum += s;
    r.scores[task] = eval::python_round(sum / static_cast<double>(column.scores.size()), 2);
    scores.push_back(eval::TaskResult{task, {}, r.scores[task], std::nullopt});
  }
  r.avg = eval::average_score(scores);
}

// Kept tokens per layer over both runs' samples, weighted by their sample counts; none (an
// empty summary) when either run has none or they count other layers, rather than one run's
// figures under the pooled row.
eval::KeptTokensSummary merge_kept(const eval::KeptTokensSummary& a, const eval::KeptTokensSummary& b) {
  if (a.samples == 0 || b.samples == 0 || a.mean_kept.size() != b.mean_kept.size()) return {};
  eval::KeptTokensSummary out;
  out.samples = a.samples + b.samples;
  const double wa = static_cast<double>(a.samples) / static_cast<double>(out.samples);
  const double wb = 1.0 - wa;
  out.mean_kept.resize(a.mean_kept.size());
  for (std::size_t l = 0; l < a.mean_kept.size(); ++l) out.mean_kept[l] = wa * a.mean_kept[l] + wb * b.mean_kept[l];
  out.mean_prompt_tokens = wa * a.mean_prompt_tokens + wb * b.mean_prompt_tokens;
  return out;
}

void require_samples(const LongBenchResult& r, const LongBenchResult& other) {
  if (!r.samples.empty()) return;
  throw std::invalid_argument(fmt::format(
      "--pool: {} has no per-sample scores (sample_scores.json), so it cannot be pooled with {}; score it again "
      "(`ripplekv longbench-score --pred {}` for a LongBench run; for a RULER or needle run, rerun the command in "
      "its config.json, info.command, which scores a finished run again), or leave it out of --runs",
      r.dir.string(), other.dir.string(), r.dir.string()));
}

// Runs pool only when they were made the same way (model, dtype, device, chat template, ...).
void require_same_settings(const LongBenchResult& a, const LongBenchResult& b) {
  if (a.settings == b.settings) return;
  std::string what;
  for (const auto* j : {&a.settings, &b.settings}) {
    for (const auto& [key, value] : j->items()) {
      const auto& other = j == &a.settings ? b.settings : a.settings;
      if (what.empty() && (!other.contains(key) || other.at(key) != value)) {
        const auto in_a = a.settings.contains(key) ? a.settings.at(key).dump() : "(not set)";
        const auto in_b = b.settings.contains(key) ? b.settings.at(key).dump() : "(not set)";
        what = fmt::format("{}: {} against {}", key, in_a, in_b);
      }
    }
  }
  throw std::invalid_argument(fmt::format(
      "--pool: these runs of one method were made differently ({}), so their samples cannot be pooled:\n  {}\n  "
      "{}\npool only runs that differ in their samples (--seed, data), or pass one of them",
      what, a.dir.string(), b.dir.string()));
}

}  // namespace

PooledRuns pool_sample_sets(const std::vector<LongBenchResult>& runs, bool across_tasks) {
  PooledRuns out;
  std::map<RowKey, std::size_t> row_of;
  std::map<std::string, std::size_t> task_rank;  // a task's first appearance among all the runs
  for (const auto& run : runs) {
    for (const auto& task : run.tasks) task_rank.emplace(task, task_rank.size());
  }
  std::vector<std::map<std::string, std::string>> owner;  // per output row: qualified id@task -> folder
  for (const auto& run : runs) {
    LongBenchResult r = run;
    for (auto& [task, column] : r.samples) {
      for (auto& id : column.ids) id = qualified(run, id);
    }
    const auto [it, fresh] = row_of.emplace(row_key(r, across_tasks), out.runs.size());
    if (fresh) {
      owner.emplace_back();
      for (const auto& [task, column] : r.samples) {
        for (const auto& id : column.ids) owner.back()[sample_key(task, id)] = r.dir.string();
      }
      out.runs.push_back(std::move(r));
      continue;
    }
    auto& into = out.runs[it->second];
    require_same_settings(into, r);
    require_samples(into, r);
    require_samples(r, into);
    auto& seen = owner[it->second];
    for (const auto& task : r.tasks) {
      if (into.samples.find(task) == into.samples.end()) into.tasks.push_back(task);  // across tasks only
      auto& column = into.samples[task];
      const auto& more = r.samples.at(task);
      for (std::size_t i = 0; i < more.ids.size(); ++i) {
        const auto [where, added] = seen.emplace(sample_key(task, more.ids[i]), r.dir.string());
        if (!added) {
          throw std::invalid_argument(fmt::format(
              "--pool: sample {} of {} is in two runs of the same method:\n  {}\n  {}\nthey cover the same samples "
              "(the same seed, data folder or file); pass only one of them, or pool runs made on other samples (another "
              "--seed)",
              more.ids[i], task, where->second, r.dir.string()));
        }
        column.ids.push_back(more.ids[i]);
        column.scores.push_back(more.scores[i]);
      }
    }
    if (into.pooled_from.empty()) into.pooled_from.push_back(into.dir);
    into.pooled_from.push_back(r.dir);
    // Shards of one seed pool too (their ids differ): name each set once.
    if (!r.sample_set.empty() && (" + " + into.sample_set + " + ").find(" + " + r.sample_set + " + ") == std::string::npos) {
      into.sample_set += (into.sample_set.empty() ? "" : " + ") + r.sample_set;
    }
    into.kept = merge_kept(into.kept, r.kept);
  }
  for (auto& r : out.runs) {
    if (r.pooled_from.empty()) continue;
    if (across_tasks) {
      std::stable_sort(r.tasks.begin(), r.tasks.end(),
                       [&](const std::string& a, const std::string& b) { return task_rank.at(a) < task_rank.at(b); });
    }
    rescore(r);
  }
  // Rows of one model and budget that cover different samples (runs without per-sample
  // scores are left out: they have no paired comparison anyway).
  using Ids = std::set<std::string>;
  std::map<std::pair<std::string, int64_t>, std::map<Ids, std::pair<std::string, std::vector<std::string>>>> cover;
  std::vector<std::pair<std::string, RunIdentity>> ids_for_labels;
  for (const auto& r : out.runs) ids_for_labels.emplace_back(r.model, r.id);
  const auto labels = run_labels(ids_for_labels);
  for (std::size_t i = 0; i < out.runs.size(); ++i) {
    const auto& r = out.runs[i];
    if (r.id.full || r.samples.empty()) continue;
    Ids ids;
    for (const auto& [task, column] : r.samples) {
      for (const auto& id : column.ids) ids.insert(sample_key(task, id));
    }
    auto& entry = cover[{r.model, r.id.budget}][ids];
    entry.first = coverage_text(r);
    entry.second.push_back(labels[i]);
  }
  for (const auto& [where, by_ids] : cover) {
    if (by_ids.size() < 2) continue;
    std::string text;
    for (const auto& [ids, entry] : by_ids) {
      std::string names;
      for (const auto& m : entry.second) names += (names.empty() ? "" : ", ") + m;
      text += fmt::format("{}{}: {}", text.empty() ? "" : "; ", entry.first, names);
    }
    out.uneven.push_back(fmt::format("{} budget {}: rows cover different samples ({})", where.first, where.second, text));
  }
  return out;
}

}  // namespace ripplekv::experiments
