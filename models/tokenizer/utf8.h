// UTF-8 decoding and encoding for the byte-level BPE tokenizer. Torch-free.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::bpe {

struct CodePoint {
  char32_t cp;
  std::size_t offset;  // byte offset of its first byte in the decoded text
};

// The code points of `text`, each with its byte offset. Throws std::invalid_argument naming the
// byte offset when `text` is not valid UTF-8 (tokenizers only ever sees valid Rust Strings).
std::vector<CodePoint> decode_utf8(std::string_view text);

void append_utf8(char32_t cp, std::string& out);

bool is_valid_utf8(std::string_view bytes);

// `bytes` as UTF-8, each ill-formed subsequence replaced by one U+FFFD the way Rust's
// String::from_utf8_lossy (and so tokenizers' ByteLevel decoder) does: a valid prefix of a
// sequence cut short counts as one subsequence; a byte that cannot start one is its own.
std::string utf8_lossy(std::string_view bytes);

}  // namespace ripplekv::bpe
