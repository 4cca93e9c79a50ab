#include "models/tokenizer/pretokenizer.h"

#include "models/tokenizer/unicode_props.h"
#include "models/tokenizer/utf8.h"

namespace ripplekv::bpe {
namespace {

constexpr std::string_view kContractions = R"((?i:'s|'t|'re|'ve|'m|'ll|'d))";
constexpr std::string_view kLetters = R"(|[^\r\n\p{L}\p{N}]?\p{L}+|)";
constexpr std::string_view kTail = R"(| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

bool is_newline(char32_t c) { return c == '\r' || c == '\n'; }

// Case-insensitive ASCII letter test as Oniguruma's (?i) folds it; U+017F (long s) folds to 's'.
bool matches_folded(char32_t c, char lower) {
  if (c == static_cast<char32_t>(lower) || c == static_cast<char32_t>(lower - 'a' + 'A')) return true;
  return lower == 's' && c == 0x17F;
}

class Matcher {
 public:
  Matcher(const std::vector<CodePoint>& cps, const SplitPattern& p) : cps_(cps), p_(p) {}

  // The number of code points the regex matches at i (always at least 1).
  std::size_t match_at(std::size_t i) const {
    if (auto n = contraction(i)) return n;
    if (auto n = letters(i)) return n;
    if (is_number(at(i))) {
      std::size_t n = 1;
      while (n < static_cast<std::size_t>(p_.max_digits) && i + n < size() && is_number(at(i + n))) ++n;
      return n;
    }
    if (auto n = punctuation(i)) return n;
    return whitespace(i);
  }

 private:
  std::size_t size() const { return cps_.size(); }
  char32_t at(std::size_t i) const { return cps_[i].cp; }
  bool is_other(char32_t c) const { return !is_whitespace(c) && !is_letter(c) && !is_number(c); }

  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  std::size_t contraction(std::size_t i) const {
    if (at(i) != '\'') return 0;
    for (std::string_view suffix : {"s", "t", "re", "ve", "m", "ll", "d"}) {
      if (i + suffix.size() >= size()) continue;  // needs code points i+1 .. i+len
      bool ok = true;
      for (std::size_t k = 0; k < suffix.size(); ++k) ok = ok && matches_folded(at(i + 1 + k), suffix[k]);
      if (ok) return 1 + suffix.size();
    }
    return 0;
  }

  // [^\r\n\p{L}\p{N}]?\p{L}+
  std::size_t letters(std::size_t i) const {
    std::size_t j = i;
    const char32_t c = at(i);
    if (!is_newline(c) && !is_letter(c) && !is_number(c) && i + 1 < size() && is_letter(at(i + 1))) ++j;
    if (!is_letter(at(j))) return 0;
    while (j < size() && is_letter(at(j))) ++j;
    return j - i;
  }

  //  ?[^\s\p{L}\p{N}]+[\r\n]*
  std::size_t punctuation(std::size_t i) const {
    std::size_t j = i;
    if (at(j) == ' ' && j + 1 < size() && is_other(at(j + 1))) ++j;
    if (!is_other(at(j))) return 0;
    while (j < size() && is_other(at(j))) ++j;
    while (j < size() && is_newline(at(j))) ++j;
    return j - i;
  }

  // \s*[\r\n]+|\s+(?!\S)|\s+ ; at(i) is whitespace here (everything else matched before).
  std::size_t whitespace(std::size_t i) const {
    std::size_t end = i;
    while (end < size() && is_whitespace(at(end))) ++end;
    // \s*[\r\n]+ : greedy \s* backs off to the last newline of the run, [\r\n]+ takes it (the
    // code point after it, if in the run, is not a newline).
    for (std::size_t k = end; k > i; --k) {
      if (is_newline(at(k - 1))) return k - i;
    }
    // \s+(?!\S) : the whole run at the end of the text, else all but its last code point.
    if (end == size()) return end - i;
    if (end - i >= 2) return end - i - 1;
    return end - i;  // \s+
  }

  const std::vector<CodePoint>& cps_;
  SplitPattern p_;
};

}  // namespace

std::optional<SplitPattern> recognize_split_regex(const std::string& regex) {
  const std::string prefix = std::string(kContractions) + std::string(kLetters);
  const std::string tail(kTail);
  if (regex == prefix + R"(\p{N}{1,3})" + tail) return SplitPattern{3};
  if (regex == prefix + R"(\p{N})" + tail) return SplitPattern{1};
  return std::nullopt;
}

std::vector<std::string_view> split_pretokens(std::string_view text, const SplitPattern& pattern) {
  const auto cps = decode_utf8(text);
  const Matcher m(cps, pattern);
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < cps.size();) {
    const std::size_t n = m.match_at(i);
    const std::size_t begin = cps[i].offset;
    const std::size_t end = i + n < cps.size() ? cps[i + n].offset : text.size();
    out.push_back(text.substr(begin, end - begin));
    i += n;
  }
  return out;
}

}  // namespace ripplekv::bpe
