// A checkpoint opened for a run: its config and tokenizer are read when it opens, the tokens
// generation stops on are resolved once from both (default_stop_tokens), and the weights are
// loaded on first use, so a run whose work is already done never loads them. Every command
// that runs a model starts from one of these.
#pragma once

#include <memory>
#include <string>

#include "models/config/model_config.h"
#include "models/config/model_identity.h"
#include "models/loaders/load_model.h"
#include "models/model/causal_lm.h"
#include "models/tokenizer/token_id.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv {

class OpenedModel {
 public:
  // `tokenizer_path` empty: the tokenizer beside the model (find_tokenizer). A Hugging Face
  // folder's config is read from config.json; a llama2.c file keeps its config in the weights
  // file, so it is loaded at once. Throws std::invalid_argument naming a missing or bad file.
  OpenedModel(std::string path, const std::string& tokenizer_path, LoadOptions load);
  ~OpenedModel();
  OpenedModel(const OpenedModel&) = delete;
  OpenedModel& operator=(const OpenedModel&) = delete;

  const std::string& path() const { return path_; }
  const LoadOptions& load_options() const { return load_; }
  const ModelConfig& config() const { return config_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const std::string& tokenizer_path() const { return tokenizer_path_; }
  // The model's end-of-sequence ids, its tokenizer's EOS, and for llama2.c models BOS.
  const TokenIds& stop_tokens() const { return stop_tokens_; }

  // The weights, loaded on the first call.
  const CausalLM& model() const;
  bool loaded() const { return model_ != nullptr; }
  // The loaded model's identity (loads it).
  ModelIdentity identity() const { return model().identity(); }

 private:
  std::string path_;
  LoadOptions load_;
  mutable std::unique_ptr<CausalLM> model_;
  ModelConfig config_;
  std::string tokenizer_path_;
  std::unique_ptr<Tokenizer> tokenizer_;
  TokenIds stop_tokens_;
};

}  // namespace ripplekv
