#include "models/tokenizer/pre_tokenizer.h"

#include <utf8proc.h>

#include <fmt/format.h>

#include "models/tokenizer/byte_level.h"
#include "models/tokenizer/normalizer.h"
#include "models/tokenizer/utf8.h"

namespace ripplekv::bpe {
namespace {

using nlohmann::json;

// GPT-2's pattern, which ByteLevel's use_regex applies.
constexpr const char* kGpt2Pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// Every character for which `pred` holds is a match of its own.
template <typename Pred>
std::vector<Span> char_matches(const std::string& text, Pred pred) {
  std::vector<Span> out;
  const auto cps = decode_utf8(text);
  for (std::size_t i = 0; i < cps.size(); ++i) {
    if (!pred(cps[i].cp)) continue;
    const std::size_t end = i + 1 < cps.size() ? cps[i + 1].offset : text.size();
    out.push_back({cps[i].offset, end});
  }
  return out;
}

template <typename F>
void split_each(std::vector<PreToken>& pieces, F&& cut) {
  std::vector<PreToken> out;
  out.reserve(pieces.size());
  for (const auto& p : pieces) {
    for (auto& sub : cut(p)) out.push_back(std::move(sub));
  }
  pieces = std::move(out);
}

class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space) {
    if (use_regex) regex_ = std::make_unique<Regex>(kGpt2Pattern);
  }
  void split(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& p) {
      PreToken whole = p;
      if (add_prefix_space_ && whole.text.rfind(' ', 0) != 0) whole.text.insert(0, " ");
      std::vector<PreToken> subs =
          regex_ ? split_at(whole, regex_->find_all(whole.text), SplitBehavior::kIsolated) : std::vector<PreToken>{whole};
      for (auto& s : subs) s.text = to_byte_level(s.text);
      return subs;
    });
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Regex> regex_;
};

// Rust's char::is_numeric: general categories Nd, Nl and No.
bool is_numeric(char32_t cp) {
  const auto c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

class Digits final : public PreTokenizer {
 public:
  explicit Digits(bool individual) : individual_(individual) {}
  void split(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& p) {
      return split_at(p, char_matches(p.text, is_numeric),
                      individual_ ? SplitBehavior::kIsolated : SplitBehavior::kContiguous);
    });
  }

 private:
  bool individual_;
};

class Split final : public PreTokenizer {
 public:
  Split(Regex pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void split(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& p) { return split_at(p, pattern_.find_all(p.text), behavior_, invert_); });
  }

 private:
  Regex pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

enum class PrependScheme { kAlways, kFirst, kNever };

class Metaspace final : public PreTokenizer {
 public:
  Metaspace(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split), marker_(Regex::literal(replacement_)) {}
  void split(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& p) {
      PreToken r{"", p.at_start};
      r.text.reserve(p.text.size() + replacement_.size());
      for (char c : p.text) {
        if (c == ' ') {
          r.text += replacement_;
        } else {
          r.text += c;
        }
      }
      const bool prepend = scheme_ == PrependScheme::kAlways || (scheme_ == PrependScheme::kFirst && p.at_start);
      if (prepend && r.text.rfind(replacement_, 0) != 0) r.text.insert(0, replacement_);
      if (!split_) return std::vector<PreToken>{r};
      return split_at(r, marker_.find_all(r.text), SplitBehavior::kMergedWithNext);
    });
  }

 private:
  std::string replacement_;
  PrependScheme scheme_;
  bool split_;
  Regex marker_;
};

class Sequence final : public PreTokenizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PreTokenizer>> parts) : parts_(std::move(parts)) {}
  void split(std::vector<PreToken>& pieces) const override {
    for (const auto& p : parts_) p->split(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

class WhitespaceSplit final : public PreTokenizer {
 public:
  void split(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [](const PreToken& p) {
      return split_at(p, char_matches(p.text, is_unicode_whitespace), SplitBehavior::kRemoved);
    });
  }
};

SplitBehavior parse_behavior(const JsonSite& site, const std::string& name) {
  if (name == "Removed") return SplitBehavior::kRemoved;
  if (name == "Isolated") return SplitBehavior::kIsolated;
  if (name == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (name == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (name == "Contiguous") return SplitBehavior::kContiguous;
  fail(site, fmt::format("\"{}\" is not a behavior (Removed, Isolated, MergedWithPrevious, MergedWithNext, "
                         "Contiguous)",
                         name));
}

}  // namespace

std::vector<PreToken> split_at(const PreToken& piece, const std::vector<Span>& matches, SplitBehavior behavior,
                               bool invert) {
  // The text as alternating (span, matched) parts covering it, then grouped by the behavior.
  struct Part {
    Span span;
    bool matched;
  };
  const std::string& text = piece.text;
  std::vector<Part> parts;
  std::size_t at = 0;
  for (const auto& m : matches) {
    if (m.begin > at) parts.push_back({{at, m.begin}, invert});
    parts.push_back({m, !invert});
    at = m.end;
  }
  if (at < text.size()) parts.push_back({{at, text.size()}, invert});

  std::vector<Part> groups;  // `matched` now means "drop this group"
  bool previous_matched = false;
  switch (behavior) {
    case SplitBehavior::kRemoved:
      groups = parts;
      break;
    case SplitBehavior::kIsolated:
      for (const auto& p : parts) groups.push_back({p.span, false});
      break;
    case SplitBehavior::kContiguous:
      for (const auto& p : parts) {
        if (!groups.empty() && p.matched == previous_matched) {
          groups.back().span.end = p.span.end;
        } else {
          groups.push_back({p.span, false});
        }
        previous_matched = p.matched;
      }
      break;
    case SplitBehavior::kMergedWithPrevious:
      for (const auto& p : parts) {
        if (p.matched && !previous_matched && !groups.empty()) {
          groups.back().span.end = p.span.end;
        } else {
          groups.push_back({p.span, false});
        }
        previous_matched = p.matched;
      }
      break;
    case SplitBehavior::kMergedWithNext:
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->matched && !previous_matched && !groups.empty()) {
          groups.back().span.begin = it->span.begin;
        } else {
          groups.push_back({it->span, false});
        }
        previous_matched = it->matched;
      }
      std::reverse(groups.begin(), groups.end());
      break;
  }
  std::vector<PreToken> out;
  for (const auto& g : groups) {
    if (g.matched || g.span.begin == g.span.end) continue;
    out.push_back({text.substr(g.span.begin, g.span.end - g.span.begin), piece.at_start && g.span.begin == 0});
  }
  return out;
}

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonSite& site, const json& spec) {
  if (spec.is_null()) return nullptr;
  const std::string type = component_type(site, spec);
  if (type == "ByteLevel") {
    // trim_offsets only moves offsets, which encode() does not report.
    return std::make_unique<ByteLevel>(get_bool(site, spec, "add_prefix_space", true),
                                       get_bool(site, spec, "use_regex", true));
  }
  if (type == "Digits") return std::make_unique<Digits>(get_bool(site, spec, "individual_digits", false));
  if (type == "Split") {
    return std::make_unique<Split>(get_pattern(site, spec),
                                   parse_behavior(site.at("behavior"), get_string(site, spec, "behavior", "")),
                                   get_bool(site, spec, "invert", false));
  }
  if (type == "Metaspace") {
    const std::string replacement = get_char(site, spec, "replacement", "\xE2\x96\x81");
    PrependScheme scheme = get_bool(site, spec, "add_prefix_space", true) ? PrependScheme::kAlways : PrependScheme::kNever;
    if (spec.contains("prepend_scheme")) {
      const auto s = get_string(site, spec, "prepend_scheme", "always");
      if (s == "always") {
        scheme = PrependScheme::kAlways;
      } else if (s == "first") {
        scheme = PrependScheme::kFirst;
      } else if (s == "never") {
        scheme = PrependScheme::kNever;
      } else {
        fail(site.at("prepend_scheme"), fmt::format("\"{}\" is not always, first or never", s));
      }
    }
    return std::make_unique<Metaspace>(replacement, scheme, get_bool(site, spec, "split", true));
  }
  if (type == "Whitespace") {
    // tokenizers: \w+|[^\w\s]+ kept, the rest removed.
    return std::make_unique<Split>(Regex(R"(\w+|[^\w\s]+)"), SplitBehavior::kRemoved, true);
  }
  if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
  if (type == "Sequence") {
    return std::make_unique<Sequence>(parse_sequence<PreTokenizer>(site, spec, "pretokenizers", make_pre_tokenizer));
  }
  fail(site, fmt::format("pre_tokenizer \"{}\" is not supported (supported: ByteLevel, Digits, Split, Metaspace, "
                         "Whitespace, WhitespaceSplit, Sequence)",
                         type));
}

}  // namespace ripplekv::bpe
