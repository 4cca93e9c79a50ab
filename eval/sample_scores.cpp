#include "eval/sample_scores.h"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ripplekv::eval {

std::string sample_scores_json(const SampleScores& scores) {
  nlohmann::ordered_json columns = nlohmann::ordered_json::object();
  for (const auto& [column, s] : scores) columns[column] = {{"ids", s.ids}, {"scores", s.scores}};
  nlohmann::ordered_json j = {{"format", "ripplekv-sample-scores"}, {"version", 1}, {"columns", columns}};
  return j.dump(1) + "\n";
}

void write_sample_scores(const std::filesystem::path& path, const SampleScores& scores) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << sample_scores_json(scores);
  if (!f) throw std::runtime_error(fmt::format("{}: cannot write", path.string()));
}

SampleScores read_sample_scores(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(fmt::format("{}: cannot read", path.string()));
  std::stringstream text;
  text << f.rdbuf();
  const auto bad = [&](const std::string& why) {
    return std::runtime_error(fmt::format("{}: {}; re-score the run (`ripplekv longbench-score` or `ripplekv ruler`) "
                                          "to rewrite it",
                                          path.string(), why));
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception&) {
    throw bad("not valid JSON");
  }
  if (!j.is_object() || j.value("format", "") != "ripplekv-sample-scores") {
    throw bad("not a ripplekv sample-scores file (\"format\" is not \"ripplekv-sample-scores\")");
  }
  if (j.value("version", 0) != 1) throw bad("version " + j.value("version", nlohmann::json()).dump() + " is not 1");
  if (!j.contains("columns") || !j["columns"].is_object()) throw bad("\"columns\" is missing or not an object");
  SampleScores out;
  for (const auto& [column, c] : j["columns"].items()) {
    if (!c.is_object() || !c.contains("ids") || !c.contains("scores") || !c["ids"].is_array() ||
        !c["scores"].is_array()) {
      throw bad(fmt::format("column \"{}\" needs the arrays \"ids\" and \"scores\"", column));
    }
    if (c["ids"].size() != c["scores"].size()) {
      throw bad(fmt::format("column \"{}\" has {} ids and {} scores", column, c["ids"].size(), c["scores"].size()));
    }
    ColumnSamples s;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < c["ids"].size(); ++i) {
      const auto& id = c["ids"][i];
      const auto& v = c["scores"][i];
      if (!id.is_string()) throw bad(fmt::format("column \"{}\": id {} is not a string", column, i));
      if (!v.is_number()) throw bad(fmt::format("column \"{}\": score {} is not a number", column, i));
      if (!seen.insert(id.get<std::string>()).second) {
        throw bad(fmt::format("column \"{}\": sample \"{}\" appears twice", column, id.get<std::string>()));
      }
      s.ids.push_back(id.get<std::string>());
      s.scores.push_back(v.get<double>());
    }
    out.emplace(column, std::move(s));
  }
  return out;
}

}  // namespace ripplekv::eval
