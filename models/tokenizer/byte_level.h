// GPT-2's byte-level alphabet: every byte maps to one printable code point, so any byte string
// becomes a string BPE can work on, and back. Used by the ByteLevel pre-tokenizer and decoder.
// Torch-free.
#pragma once

#include <string>
#include <string_view>

namespace ripplekv::bpe {

// Each byte of `bytes` as its byte-level character, UTF-8 encoded ("Hello world" -> "HelloĠworld").
std::string to_byte_level(std::string_view bytes);

// The bytes a byte-level piece stands for, appended to `out`. Returns false (appending nothing)
// when the piece has a character outside the alphabet, as added tokens may.
bool append_byte_level_bytes(std::string_view piece, std::string& out);

}  // namespace ripplekv::bpe
