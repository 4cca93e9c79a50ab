#include "eval/ruler/ruler_score.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "eval/jsonl.h"
#include "eval/python_numeric.h"
#include "eval/ruler/ruler_metric.h"
#include "eval/sample_scores.h"

namespace ripplekv::eval {
namespace fs = std::filesystem;

RulerScore score_ruler_file(const fs::path& path, const RulerTask& task, int64_t length) {
  if (!fs::is_regular_file(path)) {
    throw std::runtime_error(fmt::format("{}: no predictions file (the run is not finished)", path.string()));
  }
  std::vector<std::string> preds;
  std::vector<std::vector<std::string>> refs;
  std::vector<std::string> ids;
  JsonlReadOptions o;
  for_each_jsonl_record(path, o, [&](const nlohmann::json& r, std::size_t line) {
    preds.push_back(json_string_field(r, "pred"));
    refs.push_back(json_string_list_field(r, "outputs"));
    const auto id = r.find("_id");
    ids.push_back(id != r.end() && id->is_string() ? id->get<std::string>() : "#" + std::to_string(line));
  });
  if (preds.empty()) throw std::runtime_error(fmt::format("{}: no predictions", path.string()));
  RulerScore s;
  s.task = task.name;
  s.length = length;
  s.score = ruler_task_score(task.metric, preds, refs);
  s.nulls = ruler_nulls(preds);
  s.samples = preds.size();
  s.sample_ids = std::move(ids);
  for (std::size_t i = 0; i < preds.size(); ++i) {
    s.sample_scores.push_back(ruler_sample_score(task.metric, ruler_postprocess(preds[i]), refs[i]));
  }
  return s;
}

std::vector<RulerScore> score_ruler_dir(const fs::path& dir, const std::vector<const RulerTask*>& tasks,
                                        const std::vector<int64_t>& lengths) {
  std::vector<RulerScore> out;
  for (auto len : lengths) {
    for (const auto* t : tasks) out.push_back(score_ruler_file(dir / std::to_string(len) / (t->name + ".jsonl"), *t, len));
  }
  return out;
}

std::string ruler_scores_markdown(const std::string& label, const std::vector<RulerScore>& scores) {
  std::vector<int64_t> lengths;
  std::vector<std::string> tasks;
  std::map<std::pair<std::string, int64_t>, double> at;
  for (const auto& s : scores) {
    if (std::find(lengths.begin(), lengths.end(), s.length) == lengths.end()) lengths.push_back(s.length);
    if (std::find(tasks.begin(), tasks.end(), s.task) == tasks.end()) tasks.push_back(s.task);
    at[{s.task, s.length}] = s.score;
  }
  std::string md = fmt::format("RULER, {}\n\n| task |", label);
  for (auto l : lengths) md += fmt::format(" {} |", l);
  md += "\n|---|";
  for (std::size_t i = 0; i < lengths.size(); ++i) md += "---:|";
  md += "\n";
  for (const auto& t : tasks) {
    md += fmt::format("| {} |", t);
    for (auto l : lengths) md += fmt::format(" {:.2f} |", at.at({t, l}));
    md += "\n";
  }
  md += "| **Avg** |";
  for (auto l : lengths) {
    double sum = 0;
    for (const auto& t : tasks) sum += at.at({t, l});
    md += fmt::format(" **{:.2f}** |", python_round(sum / static_cast<double>(tasks.size()), 2));
  }
  return md + "\n";
}

std::vector<fs::path> write_ruler_scores(const fs::path& dir, const std::string& label,
                                         const std::vector<RulerScore>& scores) {
  nlohmann::ordered_json result;
  for (const auto& s : scores) result[fmt::format("{}@{}", s.task, s.length)] = s.score;
  nlohmann::ordered_json detail = nlohmann::ordered_json::array();
  for (const auto& s : scores) {
    detail.push_back({{"task", s.task}, {"length", s.length}, {"score", s.score}, {"nulls", s.nulls}, {"samples", s.samples}});
  }
  const auto write = [](const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error(fmt::format("{}: cannot write", p.string()));
  };
  write(dir / "result.json", result.dump(1) + "\n");
  write(dir / "ruler_scores.json", detail.dump(1) + "\n");
  SampleScores samples;
  for (const auto& s : scores) samples[fmt::format("{}@{}", s.task, s.length)] = {s.sample_ids, s.sample_scores};
  write(dir / "sample_scores.json", sample_scores_json(samples));
  write(dir / "results.md", ruler_scores_markdown(label, scores));
  return {dir / "result.json", dir / "ruler_scores.json", dir / "sample_scores.json", dir / "results.md"};
}

}  // namespace ripplekv::eval
