// A reader for the INI files `ripplekv sweep` reads (Boost.Program_options' config-file
// syntax, which `--config FILE` of every other command reads too), keeping where each
// value came from so that errors can say "file:line: key ...":
//
//   # a comment (also after a value: everything from '#' on is dropped)
//   key = value              (a key before any [section] is in section "")
//   [section]
//   key = value              (keys may repeat; each occurrence is one entry)
//
// Torch-free.
#pragma once

#include <string>
#include <vector>

namespace ripplekv::experiments {

struct IniEntry {
  std::string section;  // "" before the first [section]
  std::string key;
  std::string value;    // trimmed; may be empty
  std::string file;
  int line = 0;
  std::string where() const;  // "file:line" ("--set" for a command-line value, line 0)
};

struct IniFile {
  std::string path;
  std::vector<IniEntry> entries;  // file order
};

// Throws std::runtime_error "path:line: ..." for a line that is neither a comment, a
// [section] nor key = value, and "path: cannot open" for a missing file.
IniFile parse_ini_text(const std::string& text, const std::string& path);
IniFile read_ini_file(const std::string& path);

}  // namespace ripplekv::experiments
