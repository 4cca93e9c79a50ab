#include "models/tokenizer/normalizer.h"

#include <utf8proc.h>

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "models/tokenizer/utf8.h"

namespace ripplekv::bpe {
namespace {

using nlohmann::json;

class UnicodeForm final : public Normalizer {
 public:
  explicit UnicodeForm(std::string form) : form_(std::move(form)) {}
  std::string normalize(std::string text) const override { return unicode_normalize(text, form_); }

 private:
  std::string form_;
};

// Cased and Case_Ignorable (Unicode 3.13) as far as the final-sigma rule needs them.
bool is_cased(char32_t cp) {
  const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT;
}
bool is_case_ignorable(char32_t cp) {
  const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK || cp == '\'' || cp == '.' || cp == ':' ||
         cp == '^' || cp == '`' || cp == 0xB7 || cp == 0x2019;
}

// Rust's str::to_lowercase: simple lowercase mappings, plus the one unconditional multi-character
// mapping (U+0130 -> "i\u0307") and the final-sigma rule (U+03A3 -> U+03C2 at a word's end).
class Lowercase final : public Normalizer {
 public:
  std::string normalize(std::string text) const override {
    const auto cps = decode_utf8(text);
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < cps.size(); ++i) {
      const char32_t c = cps[i].cp;
      if (c == 0x130) {
        append_utf8('i', out);
        append_utf8(0x307, out);
      } else if (c == 0x3A3) {
        append_utf8(is_final_sigma(cps, i) ? 0x3C2 : 0x3C3, out);
      } else {
        append_utf8(static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))), out);
      }
    }
    return out;
  }

 private:
  static bool is_final_sigma(const std::vector<CodePoint>& cps, std::size_t i) {
    std::size_t j = i;
    bool cased_before = false;
    while (j > 0) {
      const char32_t c = cps[--j].cp;
      if (is_case_ignorable(c)) continue;
      cased_before = is_cased(c);
      break;
    }
    if (!cased_before) return false;
    for (std::size_t k = i + 1; k < cps.size(); ++k) {
      if (is_case_ignorable(cps[k].cp)) continue;
      return !is_cased(cps[k].cp);
    }
    return true;
  }
};

class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  std::string normalize(std::string text) const override {
    const auto cps = decode_utf8(text);
    std::size_t begin = 0, end = cps.size();
    while (left_ && begin < end && is_unicode_whitespace(cps[begin].cp)) ++begin;
    while (right_ && end > begin && is_unicode_whitespace(cps[end - 1].cp)) --end;
    const std::size_t from = begin < cps.size() ? cps[begin].offset : text.size();
    const std::size_t to = end < cps.size() ? cps[end].offset : text.size();
    return text.substr(from, to - from);
  }

 private:
  bool left_, right_;
};

// tokenizers' StripAccents drops combining marks (general category M).
class StripAccents final : public Normalizer {
 public:
  std::string normalize(std::string text) const override {
    std::string out;
    for (const auto& cp : decode_utf8(text)) {
      const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp.cp));
      if (c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME) continue;
      append_utf8(cp.cp, out);
    }
    return out;
  }
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string normalize(std::string text) const override { return text.empty() ? text : prefix_ + text; }

 private:
  std::string prefix_;
};

class Replace final : public Normalizer {
 public:
  Replace(Regex pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  std::string normalize(std::string text) const override { return pattern_.replace_all(text, content_); }

 private:
  Regex pattern_;
  std::string content_;
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> parts) : parts_(std::move(parts)) {}
  std::string normalize(std::string text) const override {
    for (const auto& p : parts_) text = p->normalize(std::move(text));
    return text;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

}  // namespace

bool is_unicode_whitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

std::string unicode_normalize(const std::string& text, const std::string& form) {
  int options = UTF8PROC_STABLE;
  if (form == "NFC") {
    options |= UTF8PROC_COMPOSE;
  } else if (form == "NFD") {
    options |= UTF8PROC_DECOMPOSE;
  } else if (form == "NFKC") {
    options |= UTF8PROC_COMPOSE | UTF8PROC_COMPAT;
  } else if (form == "NFKD") {
    options |= UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT;
  } else {
    throw std::invalid_argument(fmt::format("unknown Unicode normalization form \"{}\"", form));
  }
  if (text.empty()) return text;
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &out,
                                          static_cast<utf8proc_option_t>(options));
  if (n < 0) throw std::invalid_argument(fmt::format("{} normalization failed: {}", form, utf8proc_errmsg(n)));
  std::string result(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
  std::free(out);
  return result;
}

std::unique_ptr<Normalizer> make_normalizer(const JsonSite& site, const json& spec) {
  if (spec.is_null()) return nullptr;
  const std::string type = component_type(site, spec);
  if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") return std::make_unique<UnicodeForm>(type);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "Strip") {
    return std::make_unique<Strip>(get_bool(site, spec, "strip_left", true), get_bool(site, spec, "strip_right", true));
  }
  if (type == "StripAccents") return std::make_unique<StripAccents>();
  if (type == "Prepend") return std::make_unique<Prepend>(get_string(site, spec, "prepend", ""));
  if (type == "Replace") return std::make_unique<Replace>(get_pattern(site, spec), require_string(site, spec, "content"));
  if (type == "Sequence") {
    return std::make_unique<Sequence>(parse_sequence<Normalizer>(site, spec, "normalizers", make_normalizer));
  }
  fail(site, fmt::format("normalizer \"{}\" is not supported (supported: NFC, NFD, NFKC, NFKD, Lowercase, Strip, "
                         "StripAccents, Prepend, Replace, Sequence)",
                         type));
}

}  // namespace ripplekv::bpe
