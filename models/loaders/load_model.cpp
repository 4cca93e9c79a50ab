#include "models/loaders/load_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "models/loaders/checkpoint_fingerprint.h"
#include "models/loaders/safetensors.h"

namespace ripplekv {

namespace fs = std::filesystem;

at::ScalarType parse_dtype(const std::string& name) {
  if (name == "float32" || name == "fp32") return at::kFloat;
  if (name == "bfloat16" || name == "bf16") return at::kBFloat16;
  if (name == "float16" || name == "fp16") return at::kHalf;
  throw std::invalid_argument(fmt::format("--dtype {}: unknown dtype (choose float32, bfloat16 or float16)", name));
}

at::Device parse_device(const std::string& name) {
  if (name == "cpu") return at::kCPU;
  if (name.rfind("cuda", 0) == 0) {
    at::Device dev(at::kCPU);
    try {
      dev = at::Device(name);
    } catch (const std::exception&) {
      throw std::invalid_argument(fmt::format("--device {}: not a device (use cpu, cuda or cuda:N)", name));
    }
    if (!at::hasCUDA()) {
      throw std::invalid_argument(fmt::format(
          "--device {}: this LibTorch has no usable CUDA device here; use --device cpu", name));
    }
    return dev;
  }
  throw std::invalid_argument(fmt::format("--device {}: unknown device (use cpu, cuda or cuda:N)", name));
}

std::unique_ptr<LlamaModel> load_model(const std::string& path, const LoadOptions& options) {
  if (!fs::exists(path)) {
    throw std::invalid_argument(fmt::format("{}: model path does not exist (give a HF checkpoint directory or a "
                                            "llama2.c .bin file)", path));
  }
  if (fs::is_directory(path)) return load_hf_model(path, options);
  return load_llama2c_model(path, options);
}

namespace {

at::ScalarType to_aten(StDtype d) {
  switch (d) {
    case StDtype::F32: return at::kFloat;
    case StDtype::F16: return at::kHalf;
    case StDtype::BF16: return at::kBFloat16;
  }
  return at::kFloat;
}

class TensorTaker {
 public:
  TensorTaker(const SafetensorsCheckpoint& ckpt, const std::string& dir, const LoadOptions& opt)
      : ckpt_(ckpt), dir_(dir), opt_(opt) {}

  at::Tensor take(const std::string& name, std::vector<int64_t> shape) {
    auto it = ckpt_.tensors().find(name);
    if (it == ckpt_.tensors().end()) {
      throw std::runtime_error(fmt::format("{}: tensor \"{}\" is missing from {} (is the config for this checkpoint?)",
                                           dir_, name, ckpt_.describe()));
    }
    const auto& info = *it->second.info;
    if (info.shape != shape) {
      throw std::runtime_error(fmt::format("{}: tensor \"{}\" in {} has shape [{}], the config implies [{}]", dir_,
                                           name, it->second.file->path(), fmt::join(info.shape, ", "),
                                           fmt::join(shape, ", ")));
    }
    used_.insert(name);
    const void* data = it->second.file->data(info);
    fingerprint_.add_tensor(name, st_dtype_name(info.dtype), info.shape, data,
                            static_cast<std::size_t>(info.end - info.begin));
    auto src = at::from_blob(const_cast<void*>(data), info.shape, at::TensorOptions().dtype(to_aten(info.dtype)));
    return src.to(opt_.device, opt_.dtype, /*non_blocking=*/false, /*copy=*/true);
  }

  std::string fingerprint() const { return fingerprint_.value(); }

  void check_all_used(const std::set<std::string>& tolerated) const {
    for (const auto& [name, entry] : ckpt_.tensors()) {
      if (used_.count(name) || tolerated.count(name)) continue;
      if (name.find("rotary_emb.inv_freq") != std::string::npos) continue;  // old HF RoPE caches
      throw std::runtime_error(fmt::format("{}: unexpected tensor \"{}\" in {} (the checkpoint does not match its "
                                           "config.json, or the architecture has parts ripplekv does not support)",
                                           dir_, name, entry.file->path()));
    }
  }

 private:
  const SafetensorsCheckpoint& ckpt_;
  std::string dir_;
  LoadOptions opt_;
  std::set<std::string> used_;
  CheckpointFingerprint fingerprint_;
};

}  // namespace

std::unique_ptr<LlamaModel> load_hf_model(const std::string& model_dir, const LoadOptions& options) {
  const auto config_path = (fs::path(model_dir) / "config.json").string();
  if (!fs::exists(config_path)) {
    throw std::invalid_argument(fmt::format("{}: no config.json in the model directory", model_dir));
  }
  ModelConfig c = parse_hf_config_file(config_path);
  add_generation_config_eos(c, (fs::path(model_dir) / "generation_config.json").string());
  SafetensorsCheckpoint ckpt(model_dir);
  TensorTaker t(ckpt, model_dir, options);
  const int64_t h = c.hidden_size, qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  ModelWeights w;
  w.embed = t.take("model.embed_tokens.weight", {c.vocab_size, h});
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const auto p = fmt::format("model.layers.{}.", l);
    LayerWeights lw;
    lw.attn_norm = t.take(p + "input_layernorm.weight", {h});
    lw.wq = t.take(p + "self_attn.q_proj.weight", {qd, h});
    lw.wk = t.take(p + "self_attn.k_proj.weight", {kvd, h});
    lw.wv = t.take(p + "self_attn.v_proj.weight", {kvd, h});
    lw.wo = t.take(p + "self_attn.o_proj.weight", {h, qd});
    if (c.attention_bias) {
      lw.bq = t.take(p + "self_attn.q_proj.bias", {qd});
      lw.bk = t.take(p + "self_attn.k_proj.bias", {kvd});
      lw.bv = t.take(p + "self_attn.v_proj.bias", {kvd});
    }
    lw.ffn_norm = t.take(p + "post_attention_layernorm.weight", {h});
    lw.w_gate = t.take(p + "mlp.gate_proj.weight", {c.intermediate_size, h});
    lw.w_up = t.take(p + "mlp.up_proj.weight", {c.intermediate_size, h});
    lw.w_down = t.take(p + "mlp.down_proj.weight", {h, c.intermediate_size});
    w.layers.push_back(std::move(lw));
  }
  w.final_norm = t.take("model.norm.weight", {h});
  std::set<std::string> tolerated;
  if (c.tie_word_embeddings) {
    w.lm_head = w.embed;
    tolerated.insert("lm_head.weight");  // some tied checkpoints store the copy anyway
  } else {
    w.lm_head = t.take("lm_head.weight", {c.vocab_size, h});
  }
  t.check_all_used(tolerated);
  return std::make_unique<LlamaModel>(std::move(c), std::move(w), t.fingerprint());
}

std::unique_ptr<LlamaModel> load_llama2c_model(const std::string& path, const LoadOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open the llama2.c checkpoint", path));
  int32_t hdr[7];
  if (!in.read(reinterpret_cast<char*>(hdr), sizeof(hdr))) {
    throw std::runtime_error(fmt::format("{}: too short for a llama2.c header (28 bytes)", path));
  }
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
  const auto file_size = static_cast<int64_t>(fs::file_size(path));
  if (file_size != 28 + 4 * n_floats) {
    throw std::runtime_error(fmt::format("{}: file has {} bytes but its header implies {}; the file is truncated or "
                                         "not a standard llama2.c checkpoint", path, file_size, 28 + 4 * n_floats));
  }
  std::vector<float> buf(static_cast<size_t>(n_floats));
  in.read(reinterpret_cast<char*>(buf.data()), static_cast<std::streamsize>(buf.size() * sizeof(float)));
  if (!in) throw std::runtime_error(fmt::format("{}: read failed", path));
  CheckpointFingerprint fingerprint;
  fingerprint.add_tensor("llama2c.header", "I32", {7}, hdr, sizeof(hdr));
  fingerprint.add_tensor("llama2c.weights", "F32", {n_floats}, buf.data(), buf.size() * sizeof(float));

  const float* p = buf.data();
  auto take = [&](std::vector<int64_t> shape) {
    int64_t n = 1;
    for (auto s : shape) n *= s;
    auto t = at::from_blob(const_cast<float*>(p), shape, at::kFloat).clone();
    p += n;
    return t;
  };
  // run.c rotates pairs (2i, 2i+1) of each head; HF rotates (i, i + hs/2). Reordering the
  // rows of wq/wk within each head maps one onto the other (attention scores are unchanged).
  std::vector<int64_t> perm;
  for (int64_t head = 0; head < n_heads; ++head) {
    for (int64_t i = 0; i < hs; i += 2) perm.push_back(head * hs + i);
    for (int64_t i = 1; i < hs; i += 2) perm.push_back(head * hs + i);
  }
  auto perm_t = at::tensor(perm, at::kLong);
  auto to_hf_rope = [&](const at::Tensor& w) { return w.index_select(0, perm_t.narrow(0, 0, w.size(0))); };

  auto emb = take({vocab, dim});
  auto rms_att = take({n_layers, dim});
  auto wq = take({n_layers, dim, dim});
  auto wk = take({n_layers, kvd, dim});
  auto wv = take({n_layers, kvd, dim});
  auto wo = take({n_layers, dim, dim});
  auto rms_ffn = take({n_layers, dim});
  auto w1 = take({n_layers, hidden, dim});
  auto w2 = take({n_layers, dim, hidden});
  auto w3 = take({n_layers, hidden, dim});
  auto rms_final = take({dim});
  p += seq_len * hs;  // freq_cis_real / freq_cis_imag: recomputed from theta instead
  at::Tensor wcls = shared ? emb : take({vocab, dim});

  auto dev = [&](const at::Tensor& x) { return x.to(options.device, options.dtype, false, true); };
  ModelWeights w;
  w.embed = dev(emb);
  for (int64_t l = 0; l < n_layers; ++l) {
    LayerWeights lw;
    lw.attn_norm = dev(rms_att[l]);
    lw.wq = dev(to_hf_rope(wq[l]));
    lw.wk = dev(to_hf_rope(wk[l]));
    lw.wv = dev(wv[l]);
    lw.wo = dev(wo[l]);
    lw.ffn_norm = dev(rms_ffn[l]);
    lw.w_gate = dev(w1[l]);
    lw.w_up = dev(w3[l]);
    lw.w_down = dev(w2[l]);
    w.layers.push_back(std::move(lw));
  }
  w.final_norm = dev(rms_final);
  w.lm_head = shared ? w.embed : dev(wcls);
  return std::make_unique<LlamaModel>(std::move(c), std::move(w), fingerprint.value());
}

}  // namespace ripplekv
