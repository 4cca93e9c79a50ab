// The tokenizer of a model: a sentencepiece .model file (Llama-1/2, Mistral, llama2.c's tok512),
// loaded through the sentencepiece shim library at run time (see spm_shim.cpp for why), or a
// Hugging Face byte-level BPE tokenizer.json (Llama-3, Qwen2; see bpe_tokenizer.h). Torch-free.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "models/tokenizer/token_id.h"

namespace ripplekv {

namespace bpe {
class BpeTokenizer;
}

class Tokenizer {
 public:
  // A file that is a JSON object is read as a tokenizer.json (with tokenizer_config.json beside
  // it, if present, for the BOS/EOS/PAD tokens), anything else as a sentencepiece model. Throws
  // std::invalid_argument naming the path when the file is missing, malformed or unsupported.
  explicit Tokenizer(const std::string& model_path);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  // add_bos prepends BOS when the tokenizer has one (and, for tokenizer.json, when
  // tokenizer_config.json does not set add_bos_token false). Special tokens written in the text
  // encode to their single ids for tokenizer.json (HF behaviour), but not for sentencepiece.
  TokenIds encode(const std::string& text, bool add_bos) const;
  std::string decode(const TokenIds& ids) const;
  std::string id_to_piece(TokenId id) const;
  TokenId piece_to_id(const std::string& piece) const;
  int vocab_size() const;
  // -1 when the tokenizer has none.
  TokenId bos_id() const;
  TokenId eos_id() const;
  TokenId unk_id() const;
  TokenId pad_id() const;
  // True for the tokens HF's decode(skip_special_tokens=True) drops: sentencepiece's BOS, EOS,
  // UNK and PAD; a tokenizer.json's added tokens marked "special".
  bool is_special(TokenId id) const;
  const std::string& path() const { return path_; }

  struct Api;  // the shim's C functions (defined in tokenizer.cpp)

 private:
  std::string path_;
  const Api* api_ = nullptr;
  void* handle_ = nullptr;
  std::unique_ptr<bpe::BpeTokenizer> bpe_;  // set for tokenizer.json; then api_/handle_ are unused
};

// The tokenizer for a model path: explicit path if given, else <dir>/tokenizer.model, then
// <dir>/tokenizer.json for a HF directory, else tokenizer.model / tok<vocab>.model beside a
// llama2.c .bin file.
std::string find_tokenizer(const std::string& model_path, const std::string& explicit_path, int vocab_size);

}  // namespace ripplekv
