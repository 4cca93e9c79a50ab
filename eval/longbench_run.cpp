#include "eval/longbench_run.h"

#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

#include "eval/list_option.h"
#include "eval/run_state.h"

namespace ripplekv::eval {
namespace fs = std::filesystem;

std::vector<const LongBenchTask*> parse_task_list(const std::string& csv) {
  std::vector<const LongBenchTask*> tasks;
  auto add = [&](const LongBenchTask* t) {
    for (const auto* have : tasks) {
      if (have == t) throw std::invalid_argument(fmt::format("--tasks: \"{}\" is listed twice", t->name));
    }
    tasks.push_back(t);
  };
  for (const auto& name : split_list(csv)) {
    if (name == "all") {
      for (const auto& t : longbench_tasks()) {
        if (t.language != Language::kChinese && metric_is_supported(t.metric)) add(&t);
      }
      continue;
    }
    const LongBenchTask& t = find_longbench_task(name);
    if (!metric_is_supported(t.metric)) {
      throw std::invalid_argument(fmt::format(
          "--tasks: {} is scored with {}, which needs jieba segmentation that ripplekv does not reproduce; drop it "
          "(\"all\" is the 16 English tasks)",
          t.name, metric_name(t.metric)));
    }
    add(&t);
  }
  if (tasks.empty()) throw std::invalid_argument("--tasks: no task given (e.g. --tasks hotpotqa,trec or --tasks all)");
  return tasks;
}

fs::path find_task_file(const fs::path& data_dir, const LongBenchTask& task, bool longbench_e) {
  if (!fs::is_directory(data_dir)) {
    throw std::runtime_error(fmt::format("--data {}: not a directory of LongBench task files", data_dir.string()));
  }
  const std::string name(task.name);
  const std::string official = longbench_e ? name + "_e.jsonl" : name + ".jsonl";
  std::vector<fs::path> tried = {data_dir / official, data_dir / "data" / official};
  if (!longbench_e) {
    tried.push_back(data_dir / ("MiniLongBench_" + name + ".json"));
    tried.push_back(data_dir / "mini" / ("MiniLongBench_" + name + ".json"));
  }
  for (const auto& path : tried) {
    if (fs::exists(path)) return path;
  }
  std::string list;
  for (const auto& path : tried) list += (list.empty() ? "" : ", ") + fs::relative(path, data_dir).string();
  throw std::runtime_error(fmt::format("task {}: no data file in {} (looked for {}){}", name, data_dir.string(), list,
                                       longbench_e ? "; LongBench-E needs the official <task>_e.jsonl files" : ""));
}

std::vector<std::string> TaskSamples::ids() const {
  std::vector<std::string> out;
  out.reserve(samples.size());
  for (const auto& s : samples) out.push_back(s.id);
  return out;
}

TaskSamples load_task_samples(const fs::path& data_dir, const LongBenchTask& task, long long max_samples,
                              bool longbench_e, const SampleReadOptions& read) {
  if (max_samples < 0) throw std::invalid_argument("--max-samples must be >= 0 (0 = all)");
  TaskSamples out;
  out.task = &task;
  out.file = find_task_file(data_dir, task, longbench_e);
  out.samples = out.file.extension() == ".jsonl" ? load_longbench_jsonl(out.file, read)
                                                 : load_minilongbench_json(out.file, std::string(task.name), read);
  if (max_samples > 0 && out.samples.size() > static_cast<std::size_t>(max_samples)) {
    out.samples.resize(static_cast<std::size_t>(max_samples));
  }
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t k = 0; k < out.samples.size(); ++k) {
    const auto& s = out.samples[k];
    if (s.dataset != task.name && s.dataset != std::string(task.name) + "_e") {
      throw std::runtime_error(fmt::format("{}: record {} is a \"{}\" sample, not {}; is this the right file?",
                                           out.file.string(), k + 1, s.dataset, task.name));
    }
    const auto [it, fresh] = seen.emplace(s.id, k);
    if (!fresh) {
      throw std::runtime_error(fmt::format("{}: records {} and {} have the same _id \"{}\"; ids must be unique",
                                           out.file.string(), it->second + 1, k + 1, s.id));
    }
  }
  if (out.samples.empty()) throw std::runtime_error(fmt::format("{}: no samples", out.file.string()));
  return out;
}

FinishedRun finish_run_dir(const fs::path& out_dir, const std::vector<TaskSamples>& tasks,
                           const ScoreOptions& score_options) {
  FinishedRun out;
  for (const auto& t : tasks) {
    const std::string name(t.task->name);
    const auto ids = t.ids();
    const auto merged = prediction_path(out_dir, name, Shard{});
    if (prediction_file_complete(merged, ids)) continue;
    const auto count = sole_shard_count(out_dir, name);
    if (!count) {
      const auto have = read_prediction_ids(merged);
      out.incomplete.push_back(fmt::format("{}: {} of {} samples done", name, have ? have->size() : 0, ids.size()));
      continue;
    }
    const int n = *count;
    if (fs::exists(merged)) {
      if (const auto conflict = whole_and_shards_disagree(out_dir, name, n)) throw std::runtime_error(*conflict);
    }
    std::vector<std::string> waiting;
    for (int i = 0; i < n; ++i) {
      const Shard shard{i, n};
      if (!prediction_file_complete(prediction_path(out_dir, name, shard), shard_ids(ids, shard))) {
        waiting.push_back(fmt::format("{}/{}", i, n));
      }
    }
    if (!waiting.empty()) {
      std::string list;
      for (const auto& w : waiting) list += (list.empty() ? "" : ", ") + w;
      out.incomplete.push_back(fmt::format("{}: waiting for shard{} {}", name, waiting.size() > 1 ? "s" : "", list));
      continue;
    }
    merge_shards(out_dir, name, n, ids);
  }
  if (!out.incomplete.empty()) return out;
  out.complete = true;
  out.results = score_predictions_dir(out_dir, score_options);
  const auto label = out_dir.has_filename() ? out_dir.filename() : out_dir.parent_path().filename();
  out.written = write_score_files(out_dir, RunScores{label.string(), out.results},
                                  score_options.longbench_e);
  return out;
}

}  // namespace ripplekv::eval
