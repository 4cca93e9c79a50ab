// Sentencepiece tokenizer (.model files: Llama-1/2, Mistral, llama2.c's tok512). Torch-free.
// Loads the sentencepiece shim library at run time (see spm_shim.cpp for why).
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace ripplekv {

class Tokenizer {
 public:
  // Throws std::invalid_argument naming the path when the file is missing or not a
  // sentencepiece model.
  explicit Tokenizer(const std::string& model_path);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;

  std::vector<int> encode(const std::string& text, bool add_bos) const;
  std::string decode(const std::vector<int>& ids) const;
  std::string id_to_piece(int id) const;
  int piece_to_id(const std::string& piece) const;
  int vocab_size() const;
  int bos_id() const;
  int eos_id() const;
  int unk_id() const;
  int pad_id() const;
  const std::string& path() const { return path_; }

  struct Api;  // the shim's C functions (defined in tokenizer.cpp)

 private:
  std::string path_;
  const Api* api_ = nullptr;
  void* handle_ = nullptr;
};

// The tokenizer for a model path: explicit path if given, else <dir>/tokenizer.model for a
// HF directory, else tokenizer.model / tok<vocab>.model beside a llama2.c .bin file.
std::string find_tokenizer(const std::string& model_path, const std::string& explicit_path, int vocab_size);

}  // namespace ripplekv
