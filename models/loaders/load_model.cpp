#include "models/loaders/load_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <vector>

#include "models/loaders/checkpoint_fingerprint.h"
#include "models/loaders/llama2c_header.h"
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

std::unique_ptr<CausalLM> load_model(const std::string& path, const LoadOptions& options) {
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

// A weight with NaN or Inf makes every answer silently wrong: refuse it at load, naming it.
// `stored` is the tensor as read, `converted` in the run's dtype (float16 can overflow).
void check_finite(const at::Tensor& stored, const at::Tensor& converted, const std::string& what) {
  if (at::isfinite(converted).all().item<bool>()) return;
  const auto bad_stored = at::logical_not(at::isfinite(stored)).flatten();
  const int64_t n = bad_stored.sum().item<int64_t>();
  if (n == 0) {
    throw std::runtime_error(fmt::format("{}: values exceed the range of {} (they become Inf); run with --dtype "
                                         "bfloat16 or float32", what, c10::toString(converted.scalar_type())));
  }
  const int64_t first = bad_stored.nonzero()[0][0].item<int64_t>();
  throw std::runtime_error(fmt::format("{}: {} non-finite values (NaN or Inf), the first at flat index {}; the "
                                       "checkpoint is corrupt: re-download or re-convert it", what, n, first));
}

class TensorTaker {
 public:
  TensorTaker(const SafetensorsCheckpoint& ckpt, const std::string& dir, const LoadOptions& opt)
      : ckpt_(ckpt), dir_(dir), opt_(opt) {}

  at::Tensor take(const std::string& name, const std::vector<int64_t>& shape) { return take_stacked({{name, shape}}); }

  // Reads a tensor into `dst` (a slice of a stacked weight, so that q/k/v and gate/up are read
  // straight into the one tensor each the model multiplies by, never held twice).
  void take_into(const std::string& name, const std::vector<int64_t>& shape, at::Tensor dst) {
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
    dst.copy_(src);
    check_finite(src, dst, fmt::format("{}: tensor \"{}\" in {}", dir_, name, it->second.file->path()));
    it->second.file->release(info);  // `dst` holds a copy: the file's pages need not stay resident
  }

  // Tensors stacked along dim 0, each read into its rows: [sum of rows, in] (one tensor: itself).
  at::Tensor take_stacked(const std::vector<std::pair<std::string, std::vector<int64_t>>>& parts) {
    std::vector<int64_t> shape = parts.front().second;
    shape[0] = 0;
    for (const auto& part : parts) shape[0] += part.second[0];
    auto out = at::empty(shape, at::TensorOptions().dtype(opt_.dtype).device(opt_.device));
    int64_t row = 0;
    for (const auto& [name, part_shape] : parts) {
      take_into(name, part_shape, out.narrow(0, row, part_shape[0]));
      row += part_shape[0];
    }
    return out;
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

// Reads the llama2.c header at the start of `in` (the file at `path`) into `hdr`, checked against
// the file's size; `in` is left at the weights.
Llama2cLayout read_llama2c_header(std::ifstream& in, const std::string& path, int32_t (&hdr)[7]) {
  if (!in) throw std::invalid_argument(fmt::format("{}: cannot open the llama2.c checkpoint", path));
  if (!in.read(reinterpret_cast<char*>(hdr), sizeof(hdr))) {
    throw std::runtime_error(fmt::format("{}: too short for a llama2.c header (28 bytes)", path));
  }
  return parse_llama2c_header(hdr, static_cast<uint64_t>(fs::file_size(path)), path);
}

// Whether `path` starts with a llama2.c header that its size agrees with (a tokenizer.bin or a
// PyTorch .bin does not).
bool is_llama2c_checkpoint(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  int32_t hdr[7];
  try {
    read_llama2c_header(in, path.string(), hdr);
    return true;
  } catch (const std::exception&) {  // std::filesystem_error too
    return false;
  }
}

std::string lower_extension(const fs::path& path) {
  auto ext = path.extension().string();
  for (auto& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

// What to do about a model folder without config.json, from the files it holds (the first in
// name order of each kind).
std::string missing_config_hint(const std::string& model_dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(model_dir, ec)) {
    if (entry.is_regular_file(ec)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::string bin, gguf;
  for (const auto& f : files) {
    const auto ext = lower_extension(f);
    if (ext == ".bin" && bin.empty() && is_llama2c_checkpoint(f)) bin = f.string();
    if (ext == ".gguf" && gguf.empty()) gguf = f.string();
  }
  if (!bin.empty()) return fmt::format("; {} is a llama2.c checkpoint: give the file itself, --model {}", bin, bin);
  if (!gguf.empty()) {
    return fmt::format("; {} is a GGUF file, which ripplekv does not read: convert it with scripts/gguf_to_hf.py "
                       "(as scripts/get_model.sh does)", gguf);
  }
  return "; expected a Hugging Face checkpoint folder (config.json and *.safetensors, e.g. one that "
         "scripts/get_model.sh fetches) or a llama2.c .bin file";
}

}  // namespace

ModelConfig read_hf_model_config(const std::string& model_dir) {
  const auto config_path = (fs::path(model_dir) / "config.json").string();
  if (!fs::exists(config_path)) {
    throw std::invalid_argument(
        fmt::format("{}: no config.json in the model directory{}", model_dir, missing_config_hint(model_dir)));
  }
  ModelConfig c = parse_hf_config_file(config_path);
  add_generation_config_eos(c, (fs::path(model_dir) / "generation_config.json").string());
  return c;
}

std::unique_ptr<LlamaModel> load_hf_model(const std::string& model_dir, const LoadOptions& options) {
  ModelConfig c = read_hf_model_config(model_dir);
  SafetensorsCheckpoint ckpt(model_dir);
  TensorTaker t(ckpt, model_dir, options);
  const int64_t h = c.hidden_size, qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  ModelWeights w;
  w.embed = t.take("model.embed_tokens.weight", {c.vocab_size, h});
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const auto p = fmt::format("model.layers.{}.", l);
    LayerWeights lw;
    lw.attn_norm = t.take(p + "input_layernorm.weight", {h});
    // Read stacked, as LlamaModel multiplies by them (it makes wq .. w_up views into these).
    lw.w_qkv = t.take_stacked({{p + "self_attn.q_proj.weight", {qd, h}},
                               {p + "self_attn.k_proj.weight", {kvd, h}},
                               {p + "self_attn.v_proj.weight", {kvd, h}}});
    lw.wo = t.take(p + "self_attn.o_proj.weight", {h, qd});
    if (c.attention_bias) {
      lw.b_qkv = t.take_stacked({{p + "self_attn.q_proj.bias", {qd}},
                                 {p + "self_attn.k_proj.bias", {kvd}},
                                 {p + "self_attn.v_proj.bias", {kvd}}});
    }
    lw.ffn_norm = t.take(p + "post_attention_layernorm.weight", {h});
    lw.w_gate_up = t.take_stacked({{p + "mlp.gate_proj.weight", {c.intermediate_size, h}},
                                   {p + "mlp.up_proj.weight", {c.intermediate_size, h}}});
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
  int32_t hdr[7];
  const Llama2cLayout layout = read_llama2c_header(in, path, hdr);
  const ModelConfig& c = layout.config;
  const int64_t dim = c.hidden_size, hidden = c.intermediate_size, n_layers = c.num_layers, n_heads = c.num_heads;
  const int64_t n_kv = c.num_kv_heads, vocab = c.vocab_size, seq_len = c.max_position_embeddings;
  const bool shared = c.tie_word_embeddings;
  const int64_t n_floats = layout.n_floats;
  const int64_t hs = c.head_dim, kvd = n_kv * hs;
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

  auto dev = [&](const at::Tensor& x, const char* name, int64_t layer = -1) {
    auto out = x.to(options.device, options.dtype, false, true);
    check_finite(x, out, layer < 0 ? fmt::format("{}: {}", path, name) : fmt::format("{}: {} of layer {}", path, name, layer));
    return out;
  };
  ModelWeights w;
  w.embed = dev(emb, "token_embedding_table");
  for (int64_t l = 0; l < n_layers; ++l) {
    LayerWeights lw;
    lw.attn_norm = dev(rms_att[l], "rms_att_weight", l);
    lw.wq = dev(to_hf_rope(wq[l]), "wq", l);
    lw.wk = dev(to_hf_rope(wk[l]), "wk", l);
    lw.wv = dev(wv[l], "wv", l);
    lw.wo = dev(wo[l], "wo", l);
    lw.ffn_norm = dev(rms_ffn[l], "rms_ffn_weight", l);
    lw.w_gate = dev(w1[l], "w1", l);
    lw.w_up = dev(w3[l], "w3", l);
    lw.w_down = dev(w2[l], "w2", l);
    w.layers.push_back(std::move(lw));
  }
  w.final_norm = dev(rms_final, "rms_final_weight");
  w.lm_head = shared ? w.embed : dev(wcls, "wcls");
  return std::make_unique<LlamaModel>(layout.config, std::move(w), fingerprint.value());
}

}  // namespace ripplekv
