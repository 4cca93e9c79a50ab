// tokenizer.json pre-tokenizers: they cut normalized text into the pieces the BPE model sees,
// as HF tokenizers does. Supported: ByteLevel (with or without the GPT-2 regex, prefix space),
// Digits (individual or runs), Split (literal or regex, every behavior, invert), Metaspace
// (replacement, prepend_scheme always/first/never, split), Whitespace, WhitespaceSplit, and
// Sequence of these. Torch-free.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/tokenizer/tokenizer_json.h"

namespace ripplekv::bpe {

// One piece of text on its way to the model. `at_start` marks the piece that begins the whole
// input (Metaspace's prepend_scheme "first" prepends only there).
struct PreToken {
  std::string text;
  bool at_start = false;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces `pieces` by their sub-pieces, in order; empty pieces are dropped.
  virtual void split(std::vector<PreToken>& pieces) const = 0;
};

// SplitDelimiterBehavior: what becomes of the matched parts.
enum class SplitBehavior { kRemoved, kIsolated, kMergedWithPrevious, kMergedWithNext, kContiguous };

// The pieces of `text` after cutting it at `matches` (sorted, non-overlapping byte spans) with
// `behavior`, roles of matched and unmatched parts swapped when `invert`. Empty pieces dropped.
std::vector<PreToken> split_at(const PreToken& text, const std::vector<Span>& matches, SplitBehavior behavior,
                               bool invert = false);

// The pre-tokenizer a tokenizer.json describes; nullptr for `null`.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonSite& site, const nlohmann::json& spec);

}  // namespace ripplekv::bpe
