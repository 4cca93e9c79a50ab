// The Split pre-tokenizer regexes of Llama-3 and Qwen2, matched by hand over code points
// (std::regex has no \p{L}/\p{N}). Llama-3 (tiktoken cl100k-style):
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*
//   |\s*[\r\n]+|\s+(?!\S)|\s+
// Qwen2's is the same with \p{N} (one digit per piece). Torch-free.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::bpe {

struct SplitPattern {
  int max_digits;  // 3 for Llama-3's \p{N}{1,3}, 1 for Qwen2's \p{N}
};

// The pattern for a Split regex string from tokenizer.json, or nullopt for any other regex.
std::optional<SplitPattern> recognize_split_regex(const std::string& regex);

// `text` (valid UTF-8) cut into the pieces the regex matches, left to right, as tokenizers'
// Split with behavior Isolated gives them (the pattern matches at every position, so no text
// falls between matches). The pieces view `text`.
std::vector<std::string_view> split_pretokens(std::string_view text, const SplitPattern& pattern);

}  // namespace ripplekv::bpe
