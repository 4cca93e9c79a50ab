#include "eval/python_text.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "eval/python_unicode_tables.h"

namespace ripplekv::eval {
namespace {

using pyunicode::CodePointRange;

bool in_ranges(const CodePointRange* ranges, std::size_t size, char32_t cp) {
  const CodePointRange* end = ranges + size;
  // First range whose hi >= cp.
  const CodePointRange* it = std::lower_bound(
      ranges, end, cp, [](const CodePointRange& r, char32_t c) { return r.hi < c; });
  return it != end && it->lo <= cp;
}

bool is_case_ignorable(char32_t cp) {
  return in_ranges(pyunicode::kCaseIgnorableRanges, pyunicode::kCaseIgnorableRanges_size, cp);
}

bool is_cased_not_ignorable(char32_t cp) {
  return in_ranges(pyunicode::kCasedNotIgnorableRanges,
                   pyunicode::kCasedNotIgnorableRanges_size, cp);
}

constexpr char32_t kCapitalSigma = 0x03A3;
constexpr char32_t kSmallSigma = 0x03C3;
constexpr char32_t kFinalSigma = 0x03C2;

// CPython's handle_capital_sigma: final form when a cased letter precedes (skipping
// case-ignorables) and no cased letter follows (skipping case-ignorables).
char32_t lower_capital_sigma(std::u32string_view text, std::size_t i) {
  bool final_sigma = false;
  for (std::size_t j = i; j-- > 0;) {
    if (!is_case_ignorable(text[j])) {
      final_sigma = is_cased_not_ignorable(text[j]);
      break;
    }
  }
  if (final_sigma) {
    for (std::size_t j = i + 1; j < text.size(); ++j) {
      if (!is_case_ignorable(text[j])) {
        final_sigma = !is_cased_not_ignorable(text[j]);
        break;
      }
    }
  }
  return final_sigma ? kFinalSigma : kSmallSigma;
}

void append_lower(char32_t cp, std::u32string& out) {
  if (cp < 0x80) {
    out.push_back((cp >= U'A' && cp <= U'Z') ? cp + 32 : cp);
    return;
  }
  for (std::size_t k = 0; k < pyunicode::kLowerMulti_size; ++k) {
    const auto& m = pyunicode::kLowerMulti[k];
    if (m.cp == cp) {
      out.append(m.lower, m.lower + m.count);
      return;
    }
  }
  const auto* runs = pyunicode::kLowerRuns;
  const auto* end = runs + pyunicode::kLowerRuns_size;
  const auto* it = std::upper_bound(runs, end, cp,
                                    [](char32_t c, const pyunicode::LowerRun& r) { return c < r.lo; });
  if (it != runs) {
    const auto& run = *(it - 1);
    if (cp <= run.hi && (cp - run.lo) % static_cast<char32_t>(run.stride) == 0) {
      out.push_back(static_cast<char32_t>(static_cast<int64_t>(cp) + run.delta));
      return;
    }
  }
  out.push_back(cp);
}

}  // namespace

std::u32string utf8_to_u32(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    if (b0 < 0x80) {
      out.push_back(b0);
      ++i;
      continue;
    }
    int len = 0;
    char32_t cp = 0;
    char32_t min_cp = 0;
    if ((b0 & 0xE0) == 0xC0) {
      len = 2, cp = b0 & 0x1F, min_cp = 0x80;
    } else if ((b0 & 0xF0) == 0xE0) {
      len = 3, cp = b0 & 0x0F, min_cp = 0x800;
    } else if ((b0 & 0xF8) == 0xF0) {
      len = 4, cp = b0 & 0x07, min_cp = 0x10000;
    } else {
      throw std::invalid_argument(fmt::format(
          "invalid UTF-8 lead byte 0x{:02X} at byte {}; the text must be valid UTF-8", b0, i));
    }
    if (i + len > s.size()) {
      throw std::invalid_argument(
          fmt::format("truncated UTF-8 sequence at byte {}; the text must be valid UTF-8", i));
    }
    for (int k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if ((b & 0xC0) != 0x80) {
        throw std::invalid_argument(fmt::format(
            "invalid UTF-8 continuation byte 0x{:02X} at byte {}; the text must be valid UTF-8",
            b, i + k));
      }
      cp = (cp << 6) | (b & 0x3F);
    }
    if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      throw std::invalid_argument(fmt::format(
          "invalid UTF-8 (overlong, surrogate or out of range) at byte {}", i));
    }
    out.push_back(cp);
    i += len;
  }
  return out;
}

std::string u32_to_utf8(std::u32string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char32_t cp : text) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        throw std::invalid_argument(fmt::format("cannot encode surrogate U+{:04X} as UTF-8",
                                                static_cast<uint32_t>(cp)));
      }
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp <= 0x10FFFF) {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      throw std::invalid_argument(fmt::format("code point 0x{:X} is beyond U+10FFFF",
                                              static_cast<uint32_t>(cp)));
    }
  }
  return out;
}

bool py_isspace(char32_t cp) {
  if (cp < 0x80) {
    return cp == U' ' || (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x1F);
  }
  return in_ranges(pyunicode::kSpaceRanges, pyunicode::kSpaceRanges_size, cp);
}

bool py_isdecimal(char32_t cp) {
  if (cp < 0x80) return cp >= U'0' && cp <= U'9';
  return in_ranges(pyunicode::kDecimalRanges, pyunicode::kDecimalRanges_size, cp);
}

bool py_is_word(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= U'0' && cp <= U'9') || (cp >= U'a' && cp <= U'z') ||
           (cp >= U'A' && cp <= U'Z') || cp == U'_';
  }
  return in_ranges(pyunicode::kWordRanges, pyunicode::kWordRanges_size, cp);
}

std::u32string py_lower(std::u32string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == kCapitalSigma) {
      out.push_back(lower_capital_sigma(text, i));
    } else {
      append_lower(text[i], out);
    }
  }
  return out;
}

std::vector<std::u32string> py_split_whitespace(std::u32string_view text) {
  std::vector<std::u32string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && py_isspace(text[i])) ++i;
    if (i == text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !py_isspace(text[j])) ++j;
    out.emplace_back(text.substr(i, j - i));
    i = j;
  }
  return out;
}

std::vector<std::string> py_split_char(std::string_view text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t pos = text.find(sep, start);
    if (pos == std::string_view::npos) {
      out.emplace_back(text.substr(start));
      return out;
    }
    out.emplace_back(text.substr(start, pos - start));
    start = pos + 1;
  }
}

std::string_view py_lstrip_char(std::string_view text, char ch) {
  std::size_t i = 0;
  while (i < text.size() && text[i] == ch) ++i;
  return text.substr(i);
}

const char* python_unicode_tables_python_version() { return pyunicode::kPythonVersion; }
const char* python_unicode_tables_unicode_version() { return pyunicode::kUnicodeVersion; }

}  // namespace ripplekv::eval
