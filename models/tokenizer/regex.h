// Regular expressions as tokenizer.json uses them (Split / Replace patterns), through PCRE2 in
// UTF + UCP mode, so \p{L}, \p{N}, \s, (?i:...) and look-ahead mean what Oniguruma (the engine
// HF tokenizers uses) makes of them. Torch-free.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::bpe {

struct Span {
  std::size_t begin;  // byte offsets into the searched text
  std::size_t end;
};

class Regex {
 public:
  // Throws std::invalid_argument with PCRE2's message and the offset of the error.
  explicit Regex(const std::string& pattern);
  // A pattern matching `text` literally.
  static Regex literal(const std::string& text);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // The non-overlapping matches in `text` (valid UTF-8), left to right. An empty match right
  // after the previous match is skipped, as Rust's regex and Oniguruma iterators do.
  std::vector<Span> find_all(std::string_view text) const;

  // `text` with every match replaced by `content`.
  std::string replace_all(const std::string& text, const std::string& content) const;

  const std::string& pattern() const { return pattern_; }

 private:
  struct Impl;
  std::string pattern_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ripplekv::bpe
