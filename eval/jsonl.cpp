#include "eval/jsonl.h"

#include <cstdio>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::eval {

void emit_warning(const JsonlReadOptions& options, const std::string& message) {
  if (options.on_warning) {
    options.on_warning(message);
  } else {
    fmt::print(stderr, "warning: {}\n", message);
  }
}

std::size_t for_each_jsonl_record(
    const std::filesystem::path& path, const JsonlReadOptions& options,
    const std::function<void(const nlohmann::json& record, std::size_t line)>& on_record) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw std::runtime_error(fmt::format(
        "{}: cannot open the file (does it exist and is it readable?)", path.string()));
  }
  std::string line;
  std::size_t line_number = 0;
  std::size_t delivered = 0;
  while (std::getline(in, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    try {
      const nlohmann::json record = nlohmann::json::parse(line);
      on_record(record, line_number);
      ++delivered;
    } catch (const std::exception& e) {
      const std::string where = fmt::format("{}:{}", path.string(), line_number);
      if (options.skip_malformed_lines) {
        emit_warning(options, fmt::format("{}: {}; line skipped", where, e.what()));
        continue;
      }
      throw BadRecordError(fmt::format("{}: {} (fix or remove the line)", where, e.what()));
    }
  }
  return delivered;
}

const std::string& json_string_field(const nlohmann::json& record, const char* key) {
  if (!record.is_object()) {
    throw std::invalid_argument(fmt::format("expected a JSON object, got {}", record.type_name()));
  }
  const auto it = record.find(key);
  if (it == record.end()) {
    throw std::invalid_argument(fmt::format("key \"{}\" is missing", key));
  }
  if (!it->is_string()) {
    throw std::invalid_argument(
        fmt::format("key \"{}\" should be a string, got {}", key, it->type_name()));
  }
  return it->get_ref<const std::string&>();
}

std::vector<std::string> json_string_list_field(const nlohmann::json& record, const char* key) {
  if (!record.is_object()) {
    throw std::invalid_argument(fmt::format("expected a JSON object, got {}", record.type_name()));
  }
  const auto it = record.find(key);
  if (it == record.end()) {
    throw std::invalid_argument(fmt::format("key \"{}\" is missing", key));
  }
  if (!it->is_array()) {
    throw std::invalid_argument(
        fmt::format("key \"{}\" should be a list of strings, got {}", key, it->type_name()));
  }
  std::vector<std::string> out;
  out.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const auto& item = (*it)[i];
    if (!item.is_string()) {
      throw std::invalid_argument(fmt::format("key \"{}\"[{}] should be a string, got {}", key,
                                              i, item.type_name()));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace ripplekv::eval
