// The text of a JSON library error without its "[json.exception.type_error.302]" prefix, with
// the place in the document in front, for messages that name the file themselves:
//   "at /weight_map/lm_head.weight: type must be string, but is number"
// The place comes from nlohmann's JSON_DIAGNOSTICS (on for the whole build, see CMakeLists).
// Torch-free, header-only.
#pragma once

#include <exception>
#include <string>

namespace ripplekv {

inline std::string json_error_text(const std::exception& e) {
  std::string text = e.what();
  if (text.rfind("[json.exception.", 0) == 0) {
    const auto close = text.find("] ");
    if (close != std::string::npos) text = text.substr(close + 2);
  }
  // JSON_DIAGNOSTICS puts "(/path/to/value) " before the message.
  if (text.rfind("(/", 0) == 0 || text.rfind("() ", 0) == 0) {
    const auto close = text.find(") ");
    if (close != std::string::npos) {
      const std::string where = text.substr(1, close - 1);
      text = (where.empty() ? std::string("at the top level") : "at " + where) + ": " + text.substr(close + 2);
    }
  }
  return text;
}

}  // namespace ripplekv
