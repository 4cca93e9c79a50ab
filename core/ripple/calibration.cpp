#include "core/ripple/calibration.h"
#include "models/io/json_error.h"
#include "models/io/input_file.h"
#include "models/io/fnv1a.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ripplekv {

std::string fnv1a64_hex(const std::string& bytes) {
  return fmt::format("{:016x}", fnv1a64(bytes.data(), bytes.size(), kRipplekvFnvBasis));
}

namespace {

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

std::string ends_with_ext(const std::string& p) {
  const auto dot = p.find_last_of('.');
  return dot == std::string::npos ? "" : p.substr(dot);
}

// A MiniLongBench record key: a record number, "0", "1", ... without leading zeros.
bool record_number(const std::string& key) {
  return !key.empty() && key.size() <= 18 && key.find_first_not_of("0123456789") == std::string::npos &&
         (key == "0" || key[0] != '0');
}

// The MiniLongBench layout: one JSON object of records (objects) keyed by record numbers.
bool minilongbench_layout(const nlohmann::json& j) {
  if (!j.is_object() || j.empty()) return false;
  for (const auto& [key, record] : j.items()) {
    if (!record_number(key) || !record.is_object()) return false;
  }
  return true;
}

constexpr const char* kOtherFormat = "--calibration-format or --texts-format picks another format";

// The file as one JSON value, for --calibration-format minilongbench (auto has parsed it already).
nlohmann::json parse_minilongbench(const std::string& content, const std::string& path) {
  try {
    return nlohmann::json::parse(content);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::invalid_argument(fmt::format("{}: not valid JSON ({}); a MiniLongBench file is one JSON object ({})",
                                            path, json_error_text(e), kOtherFormat));
  }
}

// A MiniLongBench task file, parsed: one JSON object keyed "0".."N", each record's "origin_prompt"
// the task's formatted prompt (MiniLongBench ships no bare context). Texts in numeric key order.
void read_minilongbench(const nlohmann::json& j, const std::string& path, std::vector<std::string>& texts) {
  if (!j.is_object()) {
    throw std::invalid_argument(
        fmt::format("{}: a MiniLongBench file is one JSON object keyed \"0\"..\"N\" ({})", path, kOtherFormat));
  }
  std::vector<std::pair<unsigned long long, std::string>> keyed;
  for (const auto& [key, record] : j.items()) {
    if (!record_number(key)) {
      throw std::invalid_argument(fmt::format("{}: record key \"{}\" is not a record number (0, 1, 2, ... without "
                                              "leading zeros; {})",
                                              path, key, kOtherFormat));
    }
    if (!record.is_object() || !record.contains("origin_prompt") || !record["origin_prompt"].is_string()) {
      throw std::invalid_argument(fmt::format("{}: record \"{}\" has no string field \"origin_prompt\" ({})", path,
                                              key, kOtherFormat));
    }
    keyed.emplace_back(std::stoull(key), record["origin_prompt"].get<std::string>());
  }
  std::sort(keyed.begin(), keyed.end());
  for (auto& [key, text] : keyed) {
    if (!blank(text)) texts.push_back(std::move(text));
  }
}

}  // namespace

CalibrationSet read_calibration(const std::string& path, const std::string& format, const std::string& text_field) {
  require_input_file(path, "a calibration / texts file (.txt, .jsonl, a LongBench .jsonl or a MiniLongBench .json)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("--calibration {}: cannot open the file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string content = ss.str();
  CalibrationSet set;
  set.path = path;
  set.hash = fnv1a64_hex(content);
  std::string fmt_ = format;
  nlohmann::json whole;  // a .json file as one value, parsed once where auto looks at its layout
  if (fmt_ == "auto") {
    const auto ext = ends_with_ext(path);
    if (ext == ".json") whole = nlohmann::json::parse(content, nullptr, false);  // JSON lines: discarded
    if (minilongbench_layout(whole)) {
      fmt_ = "minilongbench";  // one object of records keyed by number
    } else if (ext == ".jsonl" || ext == ".json") {
      fmt_ = content.find("\"context\"") != std::string::npos && content.find("\"" + text_field + "\"") == std::string::npos
                 ? "longbench"
                 : "jsonl";
    } else {
      fmt_ = content.find("\n\n") != std::string::npos || content.find("\r\n\r\n") != std::string::npos ? "blocks"
                                                                                                       : "lines";
    }
  }
  set.format = fmt_;
  std::istringstream lines(content);
  std::string line;
  if (fmt_ == "lines") {
    while (std::getline(lines, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!blank(line)) set.texts.push_back(line);
    }
  } else if (fmt_ == "blocks") {
    std::string block;
    while (std::getline(lines, line)) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (blank(line)) {
        if (!blank(block)) set.texts.push_back(block);
        block.clear();
      } else {
        block += block.empty() ? line : "\n" + line;
      }
    }
    if (!blank(block)) set.texts.push_back(block);
  } else if (fmt_ == "jsonl" || fmt_ == "longbench") {
    const std::string field = fmt_ == "longbench" ? "context" : text_field;
    int n = 0;
    while (std::getline(lines, line)) {
      ++n;
      if (blank(line)) continue;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::parse_error& e) {
        throw std::invalid_argument(fmt::format("{}:{}: not valid JSON ({})", path, n, json_error_text(e)));
      }
      if (!j.is_object() || !j.contains(field) || !j[field].is_string()) {
        throw std::invalid_argument(fmt::format("{}:{}: no string field \"{}\" (choose it with --text-field)", path, n,
                                                field));
      }
      const auto text = j[field].get<std::string>();
      if (!blank(text)) set.texts.push_back(text);
    }
  } else if (fmt_ == "minilongbench") {
    if (!whole.is_object()) whole = parse_minilongbench(content, path);  // the format was given, not found
    read_minilongbench(whole, path, set.texts);
  } else {
    throw std::invalid_argument(fmt::format("{}: text format \"{}\" is not one of auto, lines, blocks, jsonl, "
                                            "longbench, minilongbench",
                                            path, format));
  }
  if (set.texts.empty()) {
    throw std::invalid_argument(fmt::format("{}: no non-empty text found (format {})", path, fmt_));
  }
  return set;
}

}  // namespace ripplekv
