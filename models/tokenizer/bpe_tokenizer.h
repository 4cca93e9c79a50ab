// A Hugging Face tokenizer.json with a BPE model (Llama-3, Qwen2, SmolLM2, GPT-2, and the
// Llama/Mistral tokenizer.json files with byte fallback), with the special tokens of
// tokenizer_config.json beside it. The pipeline is HF tokenizers':
//   added tokens   matched literally in the raw text first (leftmost-longest), each one id
//   normalizer     models/tokenizer/normalizer.h (NFC/NFKC/... via utf8proc, Replace, Prepend, ...)
//   pre_tokenizer  models/tokenizer/pre_tokenizer.h (ByteLevel, Digits, Split via PCRE2, Metaspace, ...)
//   model          BPE: ignore_merges, byte_fallback, unk_token/fuse_unk; no dropout/prefix/suffix
//   decoder        models/tokenizer/decoder.h (ByteLevel, Metaspace, ByteFallback, Fuse, Strip, ...)
// Anything else is an error naming the file and field. The post-processor is not run:
// encode()'s caller decides on BOS (Tokenizer::encode(add_bos)). Decoding keeps special tokens'
// text and does not apply transformers' clean_up_tokenization. Torch-free.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "models/tokenizer/bpe_model.h"
#include "models/tokenizer/decoder.h"
#include "models/tokenizer/normalizer.h"
#include "models/tokenizer/pre_tokenizer.h"

namespace ripplekv::bpe {

class BpeTokenizer {
 public:
  // Throws std::invalid_argument naming the file and field for anything malformed or unsupported.
  explicit BpeTokenizer(const std::string& tokenizer_json_path);

  std::vector<int> encode(const std::string& text) const;  // never adds BOS
  std::string decode(const std::vector<int>& ids) const;
  std::string id_to_piece(int id) const;
  int piece_to_id(const std::string& piece) const;  // -1 when absent
  int vocab_size() const { return static_cast<int>(pieces_.size()); }
  int bos_id() const { return bos_id_; }
  int eos_id() const { return eos_id_; }
  int unk_id() const { return unk_id_; }
  int pad_id() const { return pad_id_; }
  bool add_bos() const { return add_bos_; }
  // An added token marked "special" (what HF's skip_special_tokens drops).
  bool is_special(int id) const { return special_ids_.count(id) > 0; }

 private:
  struct AddedToken {
    std::string content;
    int id;
  };

  void load_config(const std::string& config_path);
  // Text between added tokens; `at_start` when it begins the input.
  void encode_ordinary(std::string_view text, bool at_start, std::vector<int>& out) const;

  std::string path_;
  std::unique_ptr<BpeModel> model_;
  std::unique_ptr<Normalizer> normalizer_;        // null: none
  std::unique_ptr<PreTokenizer> pre_tokenizer_;  // null: the whole text is one piece
  std::unique_ptr<Decoder> decoder_;             // null: pieces joined
  std::vector<std::string> pieces_;  // by id; "" for ids no token uses
  std::unordered_map<std::string, int> added_ids_;
  std::unordered_set<int> special_ids_;
  std::vector<std::vector<AddedToken>> added_by_first_byte_;  // 256 buckets, longest first
  int bos_id_ = -1;
  int eos_id_ = -1;
  int unk_id_ = -1;
  int pad_id_ = -1;
  bool add_bos_ = false;
};

}  // namespace ripplekv::bpe
