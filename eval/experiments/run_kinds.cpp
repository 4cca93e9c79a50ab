#include "eval/experiments/run_kinds.h"
#include "models/io/input_file.h"
#include "models/io/json_error.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval/run_state.h"

namespace ripplekv::experiments {
namespace fs = std::filesystem;
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

bool parse_int(const std::string& v, long long& out) {
  if (v.empty()) return false;
  std::size_t pos = 0;
  try {
    out = std::stoll(v, &pos, 10);
  } catch (const std::exception&) {
    return false;
  }
  return pos == v.size();
}

bool parse_number(const std::string& v, double& out) {
  if (v.empty()) return false;
  std::size_t pos = 0;
  try {
    out = std::stod(v, &pos);
  } catch (const std::exception&) {
    return false;
  }
  return pos == v.size() && std::isfinite(out);
}

nlohmann::json read_json(const fs::path& path) {
  require_input_file(path.string(), "a JSON file of a ripplekv run");
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

// The options every model-running command shares (eval/cli/command.h add_runtime_options).
std::vector<KindOption> runtime_options() {
  return {{"model", OptionType::kString},
          {"tokenizer", OptionType::kString},
          {"dtype", OptionType::kString},
          {"device", OptionType::kString},
          {"threads", OptionType::kInt, false}};
}

std::vector<KindOption> with_runtime(std::vector<KindOption> own) {
  auto all = runtime_options();
  all.insert(all.end(), own.begin(), own.end());
  return all;
}

}  // namespace

const std::vector<RunKind>& run_kinds() {
  static const std::vector<RunKind> kinds = {
      {"longbench",
       with_runtime({{"data", OptionType::kString},
                     {"tasks", OptionType::kString},
                     {"max-samples", OptionType::kInt},
                     {"chat-template", OptionType::kString},
                     {"preset", OptionType::kString},
                     {"max-input-tokens", OptionType::kInt},
                     {"context-tokens", OptionType::kInt},
                     {"on-bad-line", OptionType::kString},
                     {"e", OptionType::kBool},
                     {"save-prompts", OptionType::kBool},
                     {"decode", OptionType::kString}}),
       {"selector", "allocator", "budget", "method-opt", "ratio", "out", "shard", "methods", "budgets"},
       "the sweep sets them: list methods in `method =`, budgets in `budget =`, policy options (ratio=, "
       "window=, ...) in a [method.NAME] section, the folder with `ripplekv sweep --out`",
       longbench_run_status},
      {"fidelity",
       with_runtime({{"texts", OptionType::kString},
                     {"texts-format", OptionType::kString},
                     {"text-field", OptionType::kString},
                     {"prompt-tokens", OptionType::kInt},
                     {"continuation", OptionType::kInt},
                     {"max-texts", OptionType::kInt},
                     {"skip-texts", OptionType::kInt}}),
       {"methods", "budgets", "profile", "calibration", "out"},
       "the sweep sets them: list methods in `method =`, budgets in `budget =`, profile= or calibration= "
       "in a [method.NAME] section, the folder with `ripplekv sweep --out`",
       fidelity_run_status},
  };
  return kinds;
}

const RunKind& find_run_kind(const std::string& name) {
  std::string names;
  for (const auto& k : run_kinds()) {
    if (name == k.name) return k;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", k.name);
  }
  throw std::invalid_argument(fmt::format("unknown kind of run \"{}\"; choose from {}", name, names));
}

const KindOption* find_kind_option(const RunKind& kind, const std::string& option) {
  for (const auto& o : kind.options) {
    if (option == o.name) return &o;
  }
  return nullptr;
}

bool is_sweep_owned(const RunKind& kind, const std::string& option) {
  return std::any_of(kind.sweep_owned.begin(), kind.sweep_owned.end(),
                     [&](const char* o) { return option == o; });
}

const char* option_type_name(OptionType type) {
  switch (type) {
    case OptionType::kString: return "text";
    case OptionType::kInt: return "integer";
    case OptionType::kNumber: return "number";
    case OptionType::kBool: return "true/false";
  }
  return "?";
}

bool bool_option_value(const std::string& value) {
  const auto v = lower(value);
  if (v == "true" || v == "yes" || v == "on" || v == "1") return true;
  if (v == "false" || v == "no" || v == "off" || v == "0") return false;
  throw std::invalid_argument(fmt::format("\"{}\" is not true/false", value));
}

std::string check_option_value(OptionType type, const std::string& value) {
  long long i = 0;
  double d = 0;
  switch (type) {
    case OptionType::kString: return "";
    case OptionType::kInt:
      return parse_int(value, i) ? "" : fmt::format("\"{}\" is not an integer", value);
    case OptionType::kNumber:
      return parse_number(value, d) ? "" : fmt::format("\"{}\" is not a number", value);
    case OptionType::kBool:
      try {
        bool_option_value(value);
        return "";
      } catch (const std::invalid_argument& e) {
        return e.what();
      }
  }
  return "";
}

std::string canonical_option_value(OptionType type, const std::string& value) {
  long long i = 0;
  double d = 0;
  switch (type) {
    case OptionType::kString: return value;
    case OptionType::kInt: return parse_int(value, i) ? std::to_string(i) : value;
    case OptionType::kNumber: return parse_number(value, d) ? fmt::format("{}", d) : value;
    case OptionType::kBool: return bool_option_value(value) ? "true" : "false";
  }
  return value;
}

RunStatus longbench_run_status(const fs::path& dir) {
  const auto config_path = dir / "config.json";
  if (!fs::exists(config_path)) return {false, "not started (no config.json)"};
  nlohmann::json config;
  try {
    config = read_json(config_path).at("run");
  } catch (const std::exception& e) {
    return {false, fmt::format("config.json unreadable ({})", json_error_text(e))};
  }
  if (!fs::exists(dir / "result.json")) return {false, "not scored yet (no result.json)"};
  nlohmann::json result;
  try {
    result = read_json(dir / "result.json");
  } catch (const std::exception& e) {
    return {false, fmt::format("result.json unreadable ({})", json_error_text(e))};
  }
  // `ripplekv ruler` and `needle` folders write result.json only when every prediction file is
  // complete and scored; their tasks are "<task>@<length>" keys of it.
  try {
    const bool synthetic = config.contains("benchmark");
    for (const auto& t : config.at("tasks")) {
      const std::string task = t.get<std::string>();
      if (synthetic) {
        if (!result.contains(task)) return {false, fmt::format("result.json has no score for {}", task)};
        continue;
      }
      const auto want = config.at("data").at(task).at("samples").get<std::size_t>();
      std::optional<std::vector<std::string>> ids;
      try {
        ids = eval::read_prediction_ids(eval::prediction_path(dir, task, eval::Shard{}));
      } catch (const std::exception& e) {
        return {false, fmt::format("{}.jsonl: {}", task, json_error_text(e))};
      }
      if (!ids || ids->size() != want) {
        return {false, fmt::format("{}.jsonl: {} of {} samples", task, ids ? ids->size() : 0, want)};
      }
      if (!result.contains(task)) return {false, fmt::format("result.json has no score for {}", task)};
    }
  } catch (const nlohmann::json::exception& e) {
    return {false, fmt::format("config.json does not list this folder's tasks and samples ({})", json_error_text(e))};
  }
  return {true, ""};
}

RunStatus fidelity_run_status(const fs::path& dir) {
  if (!fs::exists(dir / "config.json")) return {false, "not started (no config.json)"};
  const auto csv = dir / "fidelity.csv";
  std::ifstream in(csv, std::ios::binary);
  if (!in) return {false, "no fidelity.csv"};
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  if (text.empty() || text.back() != '\n') return {false, "fidelity.csv is cut short"};
  std::stringstream lines(text);
  std::string line;
  std::size_t rows = 0, header_fields = 0;
  while (std::getline(lines, line)) {
    const auto fields = static_cast<std::size_t>(std::count(line.begin(), line.end(), ',')) + 1;
    if (header_fields == 0) {
      header_fields = fields;
      continue;
    }
    // Method labels are quoted and may hold commas: count fields after the closing quote.
    const auto quote = line.rfind('"');
    const auto tail = quote == std::string::npos ? line : line.substr(quote);
    const auto tail_fields = static_cast<std::size_t>(std::count(tail.begin(), tail.end(), ',')) + 1;
    if (tail_fields != header_fields) return {false, fmt::format("fidelity.csv row {} is cut short", rows + 1)};
    ++rows;
  }
  if (rows == 0) return {false, "fidelity.csv has no rows"};
  return {true, ""};
}

}  // namespace ripplekv::experiments
