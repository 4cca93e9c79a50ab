// Unicode property tables as CPython sees them (generated into
// python_unicode_tables.cpp by scripts/gen_python_unicode_tables.py).
// Only eval/python_text.cpp should need these; use its functions instead.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ripplekv::eval::pyunicode {

struct CodePointRange {
  char32_t lo;
  char32_t hi;  // inclusive
};

// Code points lo, lo+stride, ..., hi each lower-case to cp + delta.
struct LowerRun {
  char32_t lo;
  char32_t hi;
  int32_t stride;
  int32_t delta;
};

// A code point whose str.lower() is more than one code point (U+0130 only).
struct LowerMulti {
  char32_t cp;
  int32_t count;
  char32_t lower[3];
};

extern const char kUnicodeVersion[];
extern const char kPythonVersion[];
extern const CodePointRange kWordRanges[];  // re \w for str patterns (alnum or '_')
extern const std::size_t kWordRanges_size;
extern const CodePointRange kDecimalRanges[];  // re \d for str patterns
extern const std::size_t kDecimalRanges_size;
extern const CodePointRange kSpaceRanges[];  // str.isspace()
extern const std::size_t kSpaceRanges_size;
extern const CodePointRange kCasedNotIgnorableRanges[];  // for the final-sigma rule
extern const std::size_t kCasedNotIgnorableRanges_size;
extern const CodePointRange kCaseIgnorableRanges[];
extern const std::size_t kCaseIgnorableRanges_size;
extern const LowerRun kLowerRuns[];  // excludes U+03A3 (context dependent)
extern const std::size_t kLowerRuns_size;
extern const LowerMulti kLowerMulti[];
extern const std::size_t kLowerMulti_size;

}  // namespace ripplekv::eval::pyunicode
