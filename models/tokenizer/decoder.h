// tokenizer.json decoders: they turn the pieces of a list of ids back into text, as HF
// tokenizers' decode_chain does. Supported: ByteLevel, Metaspace, Replace, ByteFallback, Fuse,
// Strip, and Sequence of these. Torch-free.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/tokenizer/tokenizer_json.h"

namespace ripplekv::bpe {

class Decoder {
 public:
  virtual ~Decoder() = default;
  // The pieces after this step (some steps join them into one).
  virtual std::vector<std::string> decode(std::vector<std::string> pieces) const = 0;
};

// The decoder a tokenizer.json describes; nullptr for `null` (pieces are then joined as they are).
std::unique_ptr<Decoder> make_decoder(const JsonSite& site, const nlohmann::json& spec);

}  // namespace ripplekv::bpe
