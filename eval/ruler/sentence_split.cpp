#include "eval/ruler/sentence_split.h"

namespace ripplekv::eval {

namespace {
bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
bool is_closer(char c) { return c == '"' || c == '\'' || c == ')' || c == ']' || c == '}'; }

void push_stripped(std::vector<std::string>& out, std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  if (e > b) out.emplace_back(s.substr(b, e - b));
}
}  // namespace

std::vector<std::string> split_sentences(std::string_view text) {
  std::vector<std::string> out;
  std::size_t start = 0, i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '.' || c == '!' || c == '?') {
      std::size_t j = i;
      while (j < text.size() && (text[j] == '.' || text[j] == '!' || text[j] == '?')) ++j;
      while (j < text.size() && is_closer(text[j])) ++j;
      if (j == text.size() || is_space(text[j])) {
        push_stripped(out, text.substr(start, j - start));
        start = j;
      }
      i = j;
      continue;
    }
    ++i;
  }
  push_stripped(out, text.substr(start));
  return out;
}

}  // namespace ripplekv::eval
