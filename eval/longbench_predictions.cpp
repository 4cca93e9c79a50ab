#include "eval/longbench_predictions.h"

#include <map>

#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::eval {

std::vector<PredictionRecord> load_predictions_jsonl(const std::filesystem::path& path,
                                                     const JsonlReadOptions& options) {
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error(fmt::format(
        "{}: no such file; expected a predictions file <task>.jsonl as pred.py writes it",
        path.string()));
  }
  std::vector<PredictionRecord> records;
  // ripplekv's lines carry the sample's "_id" (pred.py's do not): a sample must count once.
  std::map<std::string, std::size_t> id_lines;
  for_each_jsonl_record(path, options, [&](const nlohmann::json& j, std::size_t line) {
    if (const auto id = j.find("_id"); id != j.end() && id->is_string()) {
      const auto [at, fresh] = id_lines.emplace(id->get<std::string>(), line);
      if (!fresh) {
        throw std::runtime_error(fmt::format("_id \"{}\" was already on line {}: each sample must appear once",
                                             at->first, at->second));
      }
    }
    PredictionRecord r;
    r.pred = json_string_field(j, "pred");
    r.answers = json_string_list_field(j, "answers");
    const auto classes = j.find("all_classes");
    if (classes != j.end() && !classes->is_null()) {
      r.all_classes = json_string_list_field(j, "all_classes");
    }
    const auto length = j.find("length");
    if (length != j.end() && !length->is_null()) {
      if (!length->is_number_integer()) {
        throw std::invalid_argument(
            fmt::format("key \"length\" should be an integer, got {}", length->type_name()));
      }
      r.length = length->get<long long>();
    }
    r.line = line;
    if (const auto id = j.find("_id"); id != j.end() && id->is_string()) {
      r.id = id->get<std::string>();
    } else {
      r.id = "#" + std::to_string(line);
    }
    records.push_back(std::move(r));
  });
  return records;
}

std::string prediction_to_json_line(const PredictionRecord& record) {
  nlohmann::ordered_json j;
  j["pred"] = record.pred;
  j["answers"] = record.answers;
  j["all_classes"] = record.all_classes ? nlohmann::ordered_json(*record.all_classes)
                                        : nlohmann::ordered_json(nullptr);
  if (record.length) j["length"] = *record.length;
  return j.dump();
}

}  // namespace ripplekv::eval
