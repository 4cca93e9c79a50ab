#include "models/tokenizer/unicode_props.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace ripplekv::bpe {
namespace {

struct CodePointRange {
  char32_t lo;
  char32_t hi;  // inclusive
};

struct CombiningClassRange {
  char32_t lo;
  char32_t hi;
  std::uint8_t ccc;
};

#include "models/tokenizer/unicode_props_tables.inc"

template <typename Range, std::size_t N>
const Range* find_range(const Range (&table)[N], char32_t cp) {
  auto it = std::upper_bound(std::begin(table), std::end(table), cp,
                             [](char32_t c, const Range& r) { return c < r.lo; });
  if (it == std::begin(table)) return nullptr;
  --it;
  return cp <= it->hi ? &*it : nullptr;
}

int combining_class(char32_t cp) {
  const auto* r = find_range(kCombiningClassRanges, cp);
  return r ? r->ccc : 0;
}

}  // namespace

bool is_letter(char32_t cp) { return find_range(kLetterRanges, cp) != nullptr; }
bool is_number(char32_t cp) { return find_range(kNumberRanges, cp) != nullptr; }

bool is_whitespace(char32_t cp) {
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0x85: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

bool is_certainly_nfc(const std::vector<CodePoint>& text) {
  int last_ccc = 0;
  for (const auto& c : text) {
    if (c.cp < 0x300) {  // below U+0300 everything is NFC_Quick_Check=Yes with class 0
      last_ccc = 0;
      continue;
    }
    const int ccc = combining_class(c.cp);
    if (ccc != 0 && last_ccc > ccc) return false;
    if (find_range(kNfcNoRanges, c.cp) || find_range(kNfcMaybeRanges, c.cp)) return false;
    last_ccc = ccc;
  }
  return true;
}

std::string_view unicode_version() { return kUnicodeVersion; }

}  // namespace ripplekv::bpe
