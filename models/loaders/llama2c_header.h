// The header of a llama2.c checkpoint (7 int32 fields: dim, hidden_dim, n_layers, n_heads,
// n_kv_heads, vocab_size (negative when the classifier is not shared), seq_len), checked
// against the file size. Torch-free, so that it can be fuzzed on its own.
#pragma once

#include <cstdint>
#include <string>

#include "models/config/model_config.h"

namespace ripplekv {

struct Llama2cLayout {
  ModelConfig config;
  int64_t n_floats = 0;  // float32 values after the header, as the header implies
};

// Throws std::runtime_error naming `path` when a field is out of range, inconsistent, or the
// file size is not the one the header implies.
Llama2cLayout parse_llama2c_header(const int32_t header[7], uint64_t file_size, const std::string& path);

}  // namespace ripplekv
