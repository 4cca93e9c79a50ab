// tokenizer.json normalizers, applied to each stretch of text between added tokens before
// pre-tokenization, as HF tokenizers does: NFC, NFD, NFKC, NFKD (utf8proc), Lowercase, Strip,
// StripAccents, Prepend, Replace (literal or regex), and Sequence of these. Torch-free.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "models/tokenizer/tokenizer_json.h"

namespace ripplekv::bpe {

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  // `text` is valid UTF-8; so is the result.
  virtual std::string normalize(std::string text) const = 0;
};

// The normalizer a tokenizer.json describes; nullptr for `null`. Unknown types and bad fields
// fail naming the file and field.
std::unique_ptr<Normalizer> make_normalizer(const JsonSite& site, const nlohmann::json& spec);

// Unicode normalization forms through utf8proc ("NFC", "NFD", "NFKC", "NFKD").
std::string unicode_normalize(const std::string& text, const std::string& form);

// Rust's char::is_whitespace (the White_Space property).
bool is_unicode_whitespace(char32_t cp);

}  // namespace ripplekv::bpe
