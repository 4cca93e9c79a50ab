#include "eval/experiments/ini_file.h"
#include "models/io/input_file.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace ripplekv::experiments {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

std::string IniEntry::where() const { return line > 0 ? fmt::format("{}:{}", file, line) : file; }

IniFile parse_ini_text(const std::string& text, const std::string& path) {
  IniFile out;
  out.path = path;
  std::stringstream ss(text);
  std::string raw, section;
  int number = 0;
  while (std::getline(ss, raw)) {
    ++number;
    // Boost's config-file parser drops everything from '#' on, wherever it is.
    const auto hash = raw.find('#');
    const std::string line = trim(hash == std::string::npos ? raw : raw.substr(0, hash));
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']' || line.size() < 3) {
        throw std::runtime_error(fmt::format("{}:{}: \"{}\" is not a [section] header", path, number, line));
      }
      section = trim(line.substr(1, line.size() - 2));
      continue;
    }
    const auto eq = line.find('=');
    if (eq == std::string::npos) {
      throw std::runtime_error(fmt::format("{}:{}: \"{}\" is not key = value (comments start with #)", path, number,
                                           line));
    }
    IniEntry e{section, trim(line.substr(0, eq)), trim(line.substr(eq + 1)), path, number};
    if (e.key.empty()) throw std::runtime_error(fmt::format("{}:{}: a value without a key", path, number));
    out.entries.push_back(std::move(e));
  }
  return out;
}

IniFile read_ini_file(const std::string& path) {
  require_input_file(path, "an INI file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot open the file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // a UTF-8 byte order mark (Windows editors)
  return parse_ini_text(text, path);
}

}  // namespace ripplekv::experiments
