// Reading JSON-lines files with errors that name the file and line.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ripplekv::eval {

struct JsonlReadOptions {
  // false: a line that is not valid JSON, or that the record callback rejects,
  // throws. true: such a line is skipped and reported through on_warning.
  bool skip_malformed_lines = false;
  // Receives "path:line: reason; line skipped". Defaults to stderr when empty.
  std::function<void(const std::string&)> on_warning;
};

// A record (line) that is not valid JSON or lacks what the reader needs, when such records are
// not skipped. Commands that can skip them (`--on-bad-line skip`) add that hint.
struct BadRecordError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Calls on_record(record, line_number) for every non-blank line (1-based numbers;
// "\r\n" endings are fine). Exceptions from parsing or from on_record become
// BadRecordError("path:line: ...") unless skip_malformed_lines is set. A file
// that cannot be opened throws std::runtime_error naming the path.
// Returns the number of records delivered.
std::size_t for_each_jsonl_record(
    const std::filesystem::path& path, const JsonlReadOptions& options,
    const std::function<void(const nlohmann::json& record, std::size_t line)>& on_record);

// Helpers for record fields; they throw std::invalid_argument naming the key.
const std::string& json_string_field(const nlohmann::json& record, const char* key);
std::vector<std::string> json_string_list_field(const nlohmann::json& record, const char* key);

// Emits a warning through options.on_warning or to stderr.
void emit_warning(const JsonlReadOptions& options, const std::string& message);

}  // namespace ripplekv::eval
