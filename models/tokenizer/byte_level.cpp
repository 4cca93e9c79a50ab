#include "models/tokenizer/byte_level.h"

#include <array>

#include "models/tokenizer/utf8.h"

namespace ripplekv::bpe {
namespace {

struct ByteLevelAlphabet {
  std::array<std::string, 256> byte_to_char;
  std::array<int, 512> char_to_byte{};  // every alphabet code point is below U+0144

  ByteLevelAlphabet() {
    char_to_byte.fill(-1);
    // Printable Latin-1 bytes stand for themselves; the rest take U+0100 upwards in order.
    const auto printable = [](int b) { return (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE; };
    int next = 0;
    for (int b = 0; b < 256; ++b) {
      const char32_t cp = printable(b) ? static_cast<char32_t>(b) : static_cast<char32_t>(256 + next++);
      append_utf8(cp, byte_to_char[static_cast<std::size_t>(b)]);
      char_to_byte[cp] = b;
    }
  }
};

const ByteLevelAlphabet& alphabet() {
  static const ByteLevelAlphabet a;
  return a;
}

}  // namespace

std::string to_byte_level(std::string_view bytes) {
  const auto& a = alphabet();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) out += a.byte_to_char[b];
  return out;
}

bool append_byte_level_bytes(std::string_view piece, std::string& out) {
  const auto& a = alphabet();
  std::string bytes;
  bytes.reserve(piece.size());
  for (std::size_t i = 0; i < piece.size();) {
    // Alphabet characters are one or two UTF-8 bytes (U+0021..U+0143).
    const auto b0 = static_cast<unsigned char>(piece[i]);
    char32_t cp = 0;
    std::size_t len = 1;
    if (b0 < 0x80) {
      cp = b0;
    } else if ((b0 & 0xE0) == 0xC0 && i + 1 < piece.size()) {
      cp = (static_cast<char32_t>(b0 & 0x1F) << 6) | (static_cast<unsigned char>(piece[i + 1]) & 0x3F);
      len = 2;
    } else {
      return false;
    }
    if (cp >= a.char_to_byte.size() || a.char_to_byte[cp] < 0) return false;
    bytes += static_cast<char>(a.char_to_byte[cp]);
    i += len;
  }
  out += bytes;
  return true;
}

}  // namespace ripplekv::bpe
