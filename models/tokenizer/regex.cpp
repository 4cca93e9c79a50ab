#include "models/tokenizer/regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include <cctype>
#include <stdexcept>

namespace ripplekv::bpe {

struct Regex::Impl {
  pcre2_code* code = nullptr;
  ~Impl() { pcre2_code_free(code); }
};

namespace {

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  pcre2_get_error_message(code, buffer, sizeof(buffer));
  return reinterpret_cast<const char*>(buffer);
}

std::size_t utf8_length_at(std::string_view text, std::size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

}  // namespace

Regex::Regex(const std::string& pattern) : pattern_(pattern), impl_(std::make_unique<Impl>()) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  impl_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP,
                              &error, &offset, nullptr);
  if (!impl_->code) {
    throw std::invalid_argument(
        fmt::format("regex \"{}\" does not compile: {} at offset {}", pattern, pcre2_message(error), offset));
  }
  // JIT is only a speed-up: the interpreter gives the same matches when it is unavailable.
  pcre2_jit_compile(impl_->code, PCRE2_JIT_COMPLETE);
}

Regex Regex::literal(const std::string& text) {
  std::string escaped;
  for (const char c : text) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x80 || std::isalnum(b)) {
      escaped += c;
    } else if (b < 0x20 || b == 0x7F) {
      escaped += fmt::format("\\x{{{:x}}}", b);
    } else {
      escaped += '\\';
      escaped += c;
    }
  }
  return Regex(escaped);
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::vector<Span> Regex::find_all(std::string_view text) const {
  std::vector<Span> out;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(impl_->code, nullptr);
  if (!data) throw std::runtime_error("pcre2: out of memory");
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t pos = 0;
  std::size_t last_end = std::string_view::npos;
  // The text was checked as UTF-8 by the caller once; PCRE2_NO_UTF_CHECK avoids re-checking it
  // (quadratically) at every start offset.
  while (pos <= text.size()) {
    const int rc = pcre2_match(impl_->code, subject, text.size(), pos, PCRE2_NO_UTF_CHECK, data, nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) break;
    if (rc < 0) {
      pcre2_match_data_free(data);
      throw std::runtime_error(fmt::format("regex \"{}\": {}", pattern_, pcre2_message(rc)));
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(data);
    const std::size_t begin = ov[0], end = ov[1];
    if (begin == end) {
      if (begin != last_end) out.push_back({begin, end});
      last_end = end;
      if (end >= text.size()) break;
      pos = end + utf8_length_at(text, end);
    } else {
      out.push_back({begin, end});
      last_end = end;
      pos = end;
    }
  }
  pcre2_match_data_free(data);
  return out;
}

std::string Regex::replace_all(const std::string& text, const std::string& content) const {
  std::string out;
  std::size_t at = 0;
  for (const auto& m : find_all(text)) {
    out.append(text, at, m.begin - at);
    out += content;
    at = m.end;
  }
  out.append(text, at, std::string::npos);
  return out;
}

}  // namespace ripplekv::bpe
