// Calibration texts for the sensitivity profiler (torch-free): read from plain text (one
// sample per line, or per blank-line-separated block), JSON lines with a text field, a
// LongBench task file (its `context`), or a MiniLongBench task file (its formatted prompts,
// `origin_prompt`). The file's content hash identifies the set.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ripplekv {

struct CalibrationSet {
  std::string path;
  std::string format;  // resolved: lines | blocks | jsonl | longbench | minilongbench
  std::string hash;    // FNV-1a 64 of the file bytes, hex
  std::vector<std::string> texts;
};

// format: auto | lines | blocks | jsonl | longbench | minilongbench. auto: a .json that is one
// object of records keyed by record number ("0", "1", ...) -> minilongbench; else .jsonl/.json
// -> jsonl (or longbench when records have "context" and not the text field); text with blank
// lines -> blocks, else lines. Empty texts are dropped; no text at all is an error naming the file.
CalibrationSet read_calibration(const std::string& path, const std::string& format = "auto",
                                const std::string& text_field = "text");

std::string fnv1a64_hex(const std::string& bytes);

}  // namespace ripplekv
