#include "eval/longbench_data.h"
#include "models/io/input_file.h"
#include "models/io/json_error.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::eval {
namespace {

std::optional<std::vector<std::string>> optional_string_list(const nlohmann::json& record,
                                                             const char* key) {
  const auto it = record.find(key);
  if (it == record.end() || it->is_null()) return std::nullopt;
  return json_string_list_field(record, key);
}

Sample sample_from_official(const nlohmann::json& record) {
  Sample s;
  s.input = json_string_field(record, "input");
  s.context = json_string_field(record, "context");
  s.answers = json_string_list_field(record, "answers");
  s.all_classes = optional_string_list(record, "all_classes");
  s.dataset = json_string_field(record, "dataset");
  s.language = json_string_field(record, "language");
  s.id = json_string_field(record, "_id");
  const auto len = record.find("length");
  if (len == record.end()) throw std::invalid_argument("key \"length\" is missing");
  if (!len->is_number_integer()) {
    throw std::invalid_argument(
        fmt::format("key \"length\" should be an integer, got {}", len->type_name()));
  }
  s.length = len->get<long long>();
  return s;
}

std::size_t line_of_offset(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

std::string task_from_mini_filename(const std::filesystem::path& path) {
  const std::string stem = path.stem().string();
  const std::string prefix = "MiniLongBench_";
  if (stem.rfind(prefix, 0) != 0) {
    throw std::invalid_argument(fmt::format(
        "{}: cannot tell the task from the file name (expected MiniLongBench_<task>.json); "
        "pass the task explicitly",
        path.string()));
  }
  return stem.substr(prefix.size());
}

Sample sample_from_mini(const std::string& key, const nlohmann::json& record,
                        const LongBenchTask& task) {
  Sample s;
  s.id = key;
  s.dataset = std::string(task.name);
  s.language = std::string(language_code(task.language));
  s.formatted_prompt = json_string_field(record, "origin_prompt");
  s.reference_prediction = json_string_field(record, "prediction");
  const auto gold = record.find("gold");
  if (gold == record.end()) throw std::invalid_argument("key \"gold\" is missing");
  if (gold->is_object()) {
    s.answers = json_string_list_field(*gold, "answers");
    s.all_classes = optional_string_list(*gold, "all_classes");
  } else {
    s.answers = json_string_list_field(record, "gold");
  }
  return s;
}

}  // namespace

std::vector<Sample> load_longbench_jsonl(const std::filesystem::path& path,
                                         const SampleReadOptions& options) {
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error(fmt::format(
        "{}: no such file; expected an official LongBench <task>.jsonl (see "
        "$RIPPLEKV_SHARED_DATA/longbench/raw/)",
        path.string()));
  }
  std::vector<Sample> samples;
  for_each_jsonl_record(path, options, [&](const nlohmann::json& record, std::size_t) {
    samples.push_back(sample_from_official(record));
  });
  return samples;
}

std::vector<Sample> load_minilongbench_json(const std::filesystem::path& path,
                                            const std::string& task_name,
                                            const SampleReadOptions& options) {
  if (!std::filesystem::exists(path)) {
    throw std::runtime_error(fmt::format(
        "{}: no such file; expected MiniLongBench_<task>.json (see "
        "$RIPPLEKV_SHARED_DATA/longbench/mini/)",
        path.string()));
  }
  const LongBenchTask& task =
      find_longbench_task(task_name.empty() ? task_from_mini_filename(path) : task_name);
  require_input_file(path.string(), "a MiniLongBench task file (a JSON object of records)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the file", path.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}:{}: not valid JSON: {}", path.string(),
                                         line_of_offset(text, e.byte), json_error_text(e)));
  }
  if (!doc.is_object()) {
    throw std::runtime_error(fmt::format(
        "{}: expected a JSON object keyed \"0\", \"1\", ... (MiniLongBench layout), got {}",
        path.string(), doc.type_name()));
  }
  std::vector<std::pair<long long, std::string>> keys;
  for (const auto& item : doc.items()) {
    long long index = -1;
    try {
      std::size_t used = 0;
      index = std::stoll(item.key(), &used);
      if (used != item.key().size()) index = -1;
    } catch (const std::exception&) {
      index = -1;
    }
    if (index < 0) {
      const std::string msg = fmt::format(
          "{}: record key \"{}\" is not a non-negative integer", path.string(), item.key());
      if (!options.skip_malformed_lines) throw BadRecordError(msg);
      emit_warning(options, msg + "; record skipped");
      continue;
    }
    keys.emplace_back(index, item.key());
  }
  std::sort(keys.begin(), keys.end());
  std::vector<Sample> samples;
  for (const auto& [index, key] : keys) {
    try {
      samples.push_back(sample_from_mini(key, doc.at(key), task));
    } catch (const std::exception& e) {
      const std::string msg =
          fmt::format("{}: record \"{}\": {}", path.string(), key, e.what());
      if (!options.skip_malformed_lines) throw BadRecordError(msg);
      emit_warning(options, msg + "; record skipped");
    }
  }
  return samples;
}

std::vector<Sample> load_longbench_samples(const std::filesystem::path& path,
                                           const SampleReadOptions& options) {
  const std::string ext = path.extension().string();
  if (ext == ".jsonl") return load_longbench_jsonl(path, options);
  if (ext == ".json") return load_minilongbench_json(path, "", options);
  throw std::invalid_argument(fmt::format(
      "{}: unknown extension \"{}\"; use .jsonl (official LongBench) or .json (MiniLongBench)",
      path.string(), ext));
}

std::string prompt_for(const Sample& sample, const LongBenchTask& task) {
  if (sample.formatted_prompt) return *sample.formatted_prompt;
  return format_prompt(task, sample.context, sample.input);
}

}  // namespace ripplekv::eval
