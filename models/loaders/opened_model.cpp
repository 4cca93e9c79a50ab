#include "models/loaders/opened_model.h"

#include <filesystem>

#include "models/generation/generate.h"

namespace ripplekv {

OpenedModel::OpenedModel(std::string path, const std::string& tokenizer_path, LoadOptions load)
    : path_(std::move(path)), load_(load) {
  if (std::filesystem::is_directory(path_)) {
    config_ = read_hf_model_config(path_);
  } else {
    model_ = load_model(path_, load_);  // throws naming the path when it does not exist
    config_ = model_->config();
  }
  tokenizer_path_ = find_tokenizer(path_, tokenizer_path, static_cast<int>(config_.vocab_size));
  tokenizer_ = std::make_unique<Tokenizer>(tokenizer_path_);
  stop_tokens_ = default_stop_tokens(config_, *tokenizer_);
}

OpenedModel::~OpenedModel() = default;

const CausalLM& OpenedModel::model() const {
  if (!model_) model_ = load_model(path_, load_);
  return *model_;
}

}  // namespace ripplekv
