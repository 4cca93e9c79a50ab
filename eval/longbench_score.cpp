#include "eval/longbench_score.h"

#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "eval/python_numeric.h"
#include "eval/sample_scores.h"

namespace ripplekv::eval {
namespace {

std::string json_quote(const std::string& s) { return nlohmann::json(s).dump(); }

std::string bucket_json(const LengthBucketScores& b, const std::string& indent) {
  return fmt::format("{{\n{0}    \"0-4k\": {1},\n{0}    \"4-8k\": {2},\n{0}    \"8k+\": {3}\n{0}}}",
                     indent, python_float_repr(b.k0_4k), python_float_repr(b.k4_8k),
                     python_float_repr(b.k8k_plus));
}

std::vector<std::string> table_columns(const std::vector<RunScores>& runs) {
  std::set<std::string> present;
  for (const auto& run : runs)
    for (const auto& r : run.results) present.insert(r.task);
  std::vector<std::string> columns;
  for (const auto& task : longbench_tasks()) {
    if (present.count(std::string(task.name))) columns.emplace_back(task.name);
  }
  return columns;
}

std::vector<std::string> table_row(const RunScores& run, const std::vector<std::string>& columns) {
  std::map<std::string, double> by_task;
  for (const auto& r : run.results) by_task[r.task] = r.score;
  std::vector<std::string> cells;
  bool complete = true;
  for (const auto& c : columns) {
    const auto it = by_task.find(c);
    if (it == by_task.end()) {
      cells.emplace_back("-");
      complete = false;
    } else {
      cells.push_back(fmt::format("{:.2f}", it->second));
    }
  }
  const auto avg = average_score(run.results);
  cells.push_back(complete && avg ? fmt::format("{:.2f}", *avg) : "-");
  return cells;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw std::runtime_error(fmt::format("{}: cannot open for writing", path.string()));
  out << text;
  if (!out) throw std::runtime_error(fmt::format("{}: write failed (disk full?)", path.string()));
}

}  // namespace

TaskResult score_task_records(const LongBenchTask& task,
                              const std::vector<PredictionRecord>& records,
                              const ScoreOptions& options, const std::string& source) {
  if (records.empty()) {
    throw std::invalid_argument(fmt::format(
        "{}: no predictions for task '{}' (eval.py would divide by zero); rerun the "
        "predictions or remove the file",
        source, task.name));
  }
  // eval.py keeps overwriting all_classes while reading, so the last line's wins.
  const auto& last_classes = records.back().all_classes;
  const std::vector<std::string>* all_classes = last_classes ? &*last_classes : nullptr;
  TaskResult result;
  result.task = std::string(task.name);
  result.sample_scores.reserve(records.size());
  std::vector<long long> lengths;
  for (const auto& r : records) {
    try {
      result.sample_scores.push_back(
          score_sample(task, r.pred, r.answers, all_classes, options.rouge));
      result.sample_ids.push_back(r.id);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("{}:{}: {}", source, r.line, e.what()));
    }
    if (options.longbench_e) {
      if (!r.length) {
        throw std::runtime_error(fmt::format(
            "{}:{}: LongBench-E scoring needs \"length\" in every record; this one has none",
            source, r.line));
      }
      lengths.push_back(*r.length);
    }
  }
  result.score = task_score(result.sample_scores);
  if (options.longbench_e) result.buckets = task_score_by_length(result.sample_scores, lengths);
  return result;
}

std::vector<TaskResult> score_predictions_dir(const std::filesystem::path& dir,
                                              const ScoreOptions& options) {
  if (!std::filesystem::is_directory(dir)) {
    throw std::runtime_error(fmt::format(
        "{}: not a directory; expected a folder of <task>.jsonl prediction files", dir.string()));
  }
  std::map<std::string, std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 5 || name.compare(name.size() - 5, 5, "jsonl") != 0) continue;
    if (!entry.is_regular_file()) {
      throw std::runtime_error(fmt::format("{}: is not a file; a <task>.jsonl here must hold predictions (move or "
                                           "rename it)", entry.path().string()));
    }
    files[name.substr(0, name.find('.'))] = entry.path();
  }
  std::vector<TaskResult> results;
  for (const auto& task : longbench_tasks()) {
    const auto it = files.find(std::string(task.name));
    if (it == files.end()) continue;
    const std::filesystem::path path = it->second;
    files.erase(it);
    if (!metric_is_supported(task.metric)) {
      const std::string msg = fmt::format(
          "{}: task '{}' needs {} (jieba), which ripplekv does not reproduce", path.string(),
          task.name, metric_name(task.metric));
      if (!options.skip_unsupported_tasks) {
        throw std::runtime_error(msg + "; move the file away, or skip such files (`ripplekv longbench-score "
                                       "--skip-unsupported`)");
      }
      emit_warning(options.read, msg + "; task skipped");
      continue;
    }
    const auto records = load_predictions_jsonl(path, options.read);
    results.push_back(score_task_records(task, records, options, path.string()));
  }
  if (!files.empty()) {
    // Reuse the task lookup's message, which lists the valid names.
    try {
      find_longbench_task(files.begin()->first);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("{}: {}; rename or move the file",
                                           files.begin()->second.string(), e.what()));
    }
  }
  return results;
}

std::string result_json(const std::vector<TaskResult>& results, bool longbench_e) {
  if (results.empty()) return "{}";
  std::string out = "{\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::string value;
    if (longbench_e) {
      if (!r.buckets) {
        throw std::invalid_argument(fmt::format(
            "result_json: task '{}' was scored without longbench_e", r.task));
      }
      value = bucket_json(*r.buckets, "    ");
    } else {
      value = python_float_repr(r.score);
    }
    out += fmt::format("    {}: {}{}\n", json_quote(r.task), value,
                       i + 1 < results.size() ? "," : "");
  }
  return out + "}";
}

std::string list_result_json(const std::vector<TaskResult>& results) {
  if (results.empty()) return "{}";
  std::string out = "{\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    out += fmt::format("    {}: ", json_quote(r.task));
    if (r.sample_scores.empty()) {
      out += "[]";
    } else {
      out += "[\n";
      for (std::size_t k = 0; k < r.sample_scores.size(); ++k) {
        out += fmt::format("        {}{}\n", python_float_repr(r.sample_scores[k]),
                           k + 1 < r.sample_scores.size() ? "," : "");
      }
      out += "    ]";
    }
    out += i + 1 < results.size() ? ",\n" : "\n";
  }
  return out + "}";
}

std::optional<double> average_score(const std::vector<TaskResult>& results) {
  if (results.empty()) return std::nullopt;
  double total = 0.0;
  for (const auto& r : results) total += r.score;
  return python_round(total / static_cast<double>(results.size()), 2);
}

std::string results_markdown(const std::vector<RunScores>& runs) {
  const auto columns = table_columns(runs);
  std::string out = "| run |";
  std::string rule = "| --- |";
  for (const auto& c : columns) {
    out += " " + c + " |";
    rule += " ---: |";
  }
  out += " Avg |\n" + rule + " ---: |\n";
  for (const auto& run : runs) {
    out += "| " + run.label + " |";
    for (const auto& cell : table_row(run, columns)) out += " " + cell + " |";
    out += "\n";
  }
  return out;
}

std::string results_csv(const std::vector<RunScores>& runs) {
  const auto columns = table_columns(runs);
  std::string out = "run";
  for (const auto& c : columns) out += "," + csv_field(c);
  out += ",Avg\n";
  for (const auto& run : runs) {
    out += csv_field(run.label);
    for (const auto& cell : table_row(run, columns)) out += "," + (cell == "-" ? "" : cell);
    out += "\n";
  }
  return out;
}

// Every file write_score_files may write, and RULER's ruler_scores.json (write_ruler_scores
// writes the rest of its files under the same names); remove_score_files removes them.
constexpr const char* kScoreFiles[] = {"result.json", "list_result.json", "sample_scores.json", "results.md",
                                       "results.csv", "ruler_scores.json"};

void remove_score_files(const std::filesystem::path& out_dir) {
  for (const char* name : kScoreFiles) std::filesystem::remove(out_dir / name);
}

std::vector<std::filesystem::path> write_score_files(const std::filesystem::path& out_dir,
                                                     const RunScores& run, bool longbench_e) {
  std::filesystem::create_directories(out_dir);
  std::vector<std::filesystem::path> written;
  auto put = [&](const char* name, const std::string& text) {
    written.push_back(out_dir / name);
    write_text(written.back(), text);
  };
  put("result.json", result_json(run.results, longbench_e));
  if (!longbench_e) {
    put("list_result.json", list_result_json(run.results));
    SampleScores samples;
    for (const auto& r : run.results) {
      auto& c = samples[r.task];
      c.ids = r.sample_ids;
      for (double s : r.sample_scores) c.scores.push_back(100.0 * s);
    }
    put("sample_scores.json", sample_scores_json(samples));
  }
  put("results.md", results_markdown({run}));
  put("results.csv", results_csv({run}));
  return written;
}

}  // namespace ripplekv::eval
