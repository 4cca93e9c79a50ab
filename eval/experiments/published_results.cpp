#include "eval/experiments/published_results.h"
#include "models/io/input_file.h"
#include "models/io/json_error.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval/longbench_tasks.h"

namespace ripplekv::experiments {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::vector<PublishedEntry> read_published_file(const std::filesystem::path& path) {
  require_input_file(path.string(), "a JSON file of published rows (--published)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("--published {}: cannot open the file", path.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(ss.str());
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("{}: not JSON ({})", path.string(), json_error_text(e)));
  }
  if (!doc.is_object() || !doc.contains("ripplekv_published_longbench") || !doc.contains("entries") ||
      !doc["entries"].is_array()) {
    throw std::invalid_argument(fmt::format(
        "{}: not a published-results file (needs \"ripplekv_published_longbench\": 1 and an \"entries\" list; see "
        "configs/published/longbench.json)",
        path.string()));
  }
  std::vector<PublishedEntry> out;
  for (std::size_t i = 0; i < doc["entries"].size(); ++i) {
    const auto& e = doc["entries"][i];
    const auto where = fmt::format("{}: entries[{}]", path.string(), i);
    try {
      PublishedEntry p;
      p.model = e.at("model").get<std::string>();
      p.method = e.at("method").get<std::string>();
      p.source = e.at("source").get<std::string>();
      if (p.source.empty()) throw std::invalid_argument("an empty \"source\"; say where the numbers are printed");
      const auto& b = e.at("budget");
      if (b.is_string() && b.get<std::string>() == "full") {
        p.budget = std::nullopt;
      } else if (b.is_number_integer() && b.get<int64_t>() > 0) {
        p.budget = b.get<int64_t>();
      } else {
        throw std::invalid_argument(fmt::format("budget {} is neither \"full\" nor a positive integer", b.dump()));
      }
      for (const auto& [task, score] : e.at("scores").items()) {
        eval::find_longbench_task(task);  // throws naming the valid tasks
        if (!score.is_number()) throw std::invalid_argument(fmt::format("scores.{} is not a number", task));
        p.scores[task] = score.get<double>();
      }
      if (p.scores.empty()) throw std::invalid_argument("no scores");
      out.push_back(std::move(p));
    } catch (const nlohmann::json::exception& ex) {
      throw std::invalid_argument(fmt::format("{}: {} (each entry has model, method, budget, source, scores)", where,
                                              json_error_text(ex)));
    } catch (const std::invalid_argument& ex) {
      throw std::invalid_argument(fmt::format("{}: {}", where, json_error_text(ex)));
    }
  }
  return out;
}

std::vector<PublishedEntry> select_published(const std::vector<PublishedEntry>& entries, const std::string& model,
                                             const std::string& file) {
  std::set<std::string> models;
  for (const auto& e : entries) models.insert(e.model);
  std::string list;
  for (const auto& m : models) list += fmt::format("{}\"{}\"", list.empty() ? "" : ", ", m);
  if (model.empty()) {
    if (models.size() == 1) return entries;
    throw std::invalid_argument(fmt::format("--published {} holds numbers for {} models ({}): choose one with "
                                            "--published-model NAME",
                                            file, models.size(), list));
  }
  std::vector<PublishedEntry> out;
  for (const auto& e : entries) {
    if (lower(e.model) == lower(model)) out.push_back(e);
  }
  if (out.empty()) {
    throw std::invalid_argument(fmt::format("--published-model \"{}\": {} has no numbers for it; it has {}", model,
                                            file, list));
  }
  return out;
}

}  // namespace ripplekv::experiments
