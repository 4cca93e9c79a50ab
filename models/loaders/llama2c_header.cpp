#include "models/loaders/llama2c_header.h"

#include <fmt/format.h>

#include <cstdlib>
#include <stdexcept>

namespace ripplekv {

Llama2cLayout parse_llama2c_header(const int32_t header[7], uint64_t file_size, const std::string& path) {
  const int32_t* hdr = header;
  const int64_t dim = hdr[0], hidden = hdr[1], n_layers = hdr[2], n_heads = hdr[3], n_kv = hdr[4];
  const bool shared = hdr[5] > 0;
  const int64_t vocab = std::abs(static_cast<int64_t>(hdr[5])), seq_len = hdr[6];
  const auto bad_header = [&](const char* what) {
    return std::runtime_error(fmt::format("{}: bad llama2.c header ({}): dim={} hidden_dim={} n_layers={} n_heads={} "
                                          "n_kv_heads={} vocab_size={} seq_len={}; is this a llama2.c .bin file?",
                                          path, what, dim, hidden, n_layers, n_heads, n_kv, hdr[5], seq_len));
  };
  if (dim <= 0 || hidden <= 0 || n_layers <= 0 || n_heads <= 0 || n_kv <= 0 || vocab <= 0 || seq_len <= 0 ||
      dim > (1 << 16) || hidden > (1 << 18) || n_layers > 1024 || vocab > (1 << 22) || seq_len > (1 << 24)) {
    throw bad_header("a field is out of range");
  }
  if (dim % n_heads != 0) throw bad_header("dim not divisible by n_heads");

  ModelConfig c;
  c.architecture = "llama2.c";
  c.model_type = "llama2c";
  c.vocab_size = vocab;
  c.hidden_size = dim;
  c.num_layers = n_layers;
  c.num_heads = n_heads;
  c.num_kv_heads = n_kv;
  c.head_dim = dim / n_heads;
  c.intermediate_size = hidden;
  c.rms_norm_eps = 1e-5;  // run.c
  c.rope_theta = 10000.0;
  c.tie_word_embeddings = shared;
  c.max_position_embeddings = seq_len;
  c.bos_token_ids = {1};
  c.eos_token_ids = {2};
  c.validate(path);

  const int64_t hs = c.head_dim, kvd = n_kv * hs;
  const int64_t n_floats = vocab * dim + n_layers * (2 * dim + dim * dim * 2 + dim * kvd * 2 + 3 * dim * hidden) +
                           dim + seq_len * hs + (shared ? 0 : vocab * dim);
  if (file_size != static_cast<uint64_t>(28 + 4 * n_floats)) {
    throw std::runtime_error(fmt::format("{}: file has {} bytes but its header implies {}; the file is truncated or "
                                         "not a standard llama2.c checkpoint", path, file_size, 28 + 4 * n_floats));
  }
  Llama2cLayout layout;
  layout.config = std::move(c);
  layout.n_floats = n_floats;
  return layout;
}

}  // namespace ripplekv
