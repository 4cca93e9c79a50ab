#include "models/llama/llama_model.h"

#include <fmt/format.h>

#include <stdexcept>
#include <tuple>

#include "models/ops/linear.h"
#include "models/ops/ops.h"
#include "models/ops/token_ops.h"

namespace ripplekv {

namespace {
// The fingerprint profiles carried before checkpoint fingerprints: sums and abs-sums of the
// embedding, the last layer and the head, each widened to float64 and summed by ATen (the
// same values as then, bit for bit).
std::string legacy_fingerprint_of(const at::Tensor& embed, const at::Tensor& wv, const at::Tensor& w_down,
                                  const at::Tensor& lm_head, const at::Tensor& final_norm) {
  const double acc[6] = {embed.to(at::kDouble).sum().item<double>(),   embed.to(at::kDouble).abs().sum().item<double>(),
                         wv.to(at::kDouble).sum().item<double>(),      w_down.to(at::kDouble).abs().sum().item<double>(),
                         lm_head.to(at::kDouble).sum().item<double>(), final_norm.to(at::kDouble).sum().item<double>()};
  return fmt::format("{:.9e}:{:.9e}:{:.9e}:{:.9e}:{:.9e}:{:.9e}", acc[0], acc[1], acc[2], acc[3], acc[4], acc[5]);
}
}  // namespace

LlamaModel::LlamaModel(ModelConfig config, ModelWeights weights, std::string checkpoint_fingerprint)
    : config_(std::move(config)), weights_(std::move(weights)), checkpoint_fingerprint_(std::move(checkpoint_fingerprint)) {
  if (static_cast<int64_t>(weights_.layers.size()) != config_.num_layers) {
    throw std::invalid_argument("LlamaModel: number of layer weights differs from the config");
  }
  // Stack q/k/v and gate/up: one larger GEMM each instead of three and two. A loader may have
  // read them stacked already (the safetensors loader does, so they are never held twice).
  const int64_t qd = config_.num_heads * config_.head_dim, kvd = config_.num_kv_heads * config_.head_dim;
  const int64_t inter = config_.intermediate_size;
  auto stacked = [](at::Tensor& out, std::initializer_list<at::Tensor> parts, int64_t rows, const char* what) {
    if (!out.defined()) out = at::cat(parts, 0);
    if (out.size(0) != rows) {
      throw std::invalid_argument(fmt::format("LlamaModel: {} has {} rows, the config implies {}", what, out.size(0), rows));
    }
  };
  for (auto& w : weights_.layers) {
    stacked(w.w_qkv, {w.wq, w.wk, w.wv}, qd + 2 * kvd, "the stacked q/k/v weight");
    w.wq = w.w_qkv.narrow(0, 0, qd);
    w.wk = w.w_qkv.narrow(0, qd, kvd);
    w.wv = w.w_qkv.narrow(0, qd + kvd, kvd);
    if (w.bq.defined() || w.b_qkv.defined()) {
      stacked(w.b_qkv, {w.bq, w.bk, w.bv}, qd + 2 * kvd, "the stacked q/k/v bias");
      w.bq = w.b_qkv.narrow(0, 0, qd);
      w.bk = w.b_qkv.narrow(0, qd, kvd);
      w.bv = w.b_qkv.narrow(0, qd + kvd, kvd);
    }
    stacked(w.w_gate_up, {w.w_gate, w.w_up}, 2 * inter, "the stacked gate/up weight");
    w.w_gate = w.w_gate_up.narrow(0, 0, inter);
    w.w_up = w.w_gate_up.narrow(0, inter, inter);
  }
  const auto inv = rope_inverse_frequencies(config_);
  inv_freq_ = at::tensor(std::vector<double>(inv.begin(), inv.end()), at::TensorOptions().dtype(at::kDouble))
                  .to(at::kFloat)
                  .to(device());
}

std::string LlamaModel::fingerprint() const {
  return checkpoint_fingerprint_.empty() ? legacy_fingerprint() : checkpoint_fingerprint_;
}

ModelIdentity LlamaModel::identity() const {
  ModelIdentity id;
  id.fingerprint = fingerprint();
  // The tensors it sums, held by the function (not the model), so that it outlives neither.
  const auto& last = weights_.layers.back();
  id.legacy_fingerprint = [embed = weights_.embed, wv = last.wv, w_down = last.w_down, lm_head = weights_.lm_head,
                           final_norm = weights_.final_norm] {
    return legacy_fingerprint_of(embed, wv, w_down, lm_head, final_norm);
  };
  id.dtype = dtype() == at::kFloat ? "float32" : dtype() == at::kBFloat16 ? "bfloat16" : dtype() == at::kHalf ? "float16"
                                                                                                  : "other";
  id.device = device().str();
  return id;
}

double LlamaModel::decode_weight_bytes() const {
  double bytes = static_cast<double>(weights_.lm_head.nbytes() + weights_.final_norm.nbytes());
  for (const auto& l : weights_.layers) {
    for (const auto* t : {&l.w_qkv, &l.b_qkv, &l.wo, &l.w_gate_up, &l.w_down, &l.attn_norm, &l.ffn_norm}) {
      if (t->defined()) bytes += static_cast<double>(t->nbytes());
    }
  }
  return bytes;
}

std::string LlamaModel::legacy_fingerprint() const {
  const auto& last = weights_.layers.back();
  return legacy_fingerprint_of(weights_.embed, last.wv, last.w_down, weights_.lm_head, weights_.final_norm);
}

at::Tensor LlamaModel::embed(const at::Tensor& tokens) const {
  if (tokens.dim() != 2) throw std::invalid_argument("LlamaModel: tokens must be [batch, tokens]");
  auto t = tokens.to(device(), at::kLong);
  const auto lo = t.min().item<int64_t>(), hi = t.max().item<int64_t>();
  if (lo < 0 || hi >= config_.vocab_size) {
    throw std::invalid_argument(fmt::format("token id out of range [0, {}): got {}..{}", config_.vocab_size, lo, hi));
  }
  return at::embedding(weights_.embed, t);
}

at::Tensor LlamaModel::layer_forward(int64_t l, const at::Tensor& hidden_in, int64_t start_pos,
                                     const at::Tensor& positions, const at::Tensor& cos, const at::Tensor& sin,
                                     KVCache& cache, const HookRegistry* hooks, Phase phase) const {
  const auto& w = weights_.layers[static_cast<size_t>(l)];
  const int64_t b = hidden_in.size(0), t = hidden_in.size(1);
  const int64_t hq = config_.num_heads, hkv = config_.num_kv_heads, d = config_.head_dim;
  auto run = [&](HookSite site, at::Tensor& x) {
    if (hooks && hooks->wants(site, l)) hooks->run(HookContext{site, l, phase, &positions}, x);
  };

  at::Tensor hidden = hidden_in;
  run(HookSite::LayerInput, hidden);

  auto x = ops::rms_norm(hidden, w.attn_norm, config_.rms_norm_eps);
  auto qkv = ops::linear(x, w.w_qkv, w.b_qkv);  // [B, T, (Hq + 2 Hkv) D]
  auto v = qkv.narrow(-1, (hq + hkv) * d, hkv * d).view({b, t, hkv, d}).transpose(1, 2);
  at::Tensor q, k;
  if (ops::rope_qk_token_supported(qkv, cos)) {  // decoding: one loop for q and k
    std::tie(q, k) = ops::rope_qk_token(qkv, cos, sin, hq, hkv, d);
  } else {
    q = ops::apply_rope(qkv.narrow(-1, 0, hq * d).view({b, t, hq, d}).transpose(1, 2), cos, sin);
    k = ops::apply_rope(qkv.narrow(-1, hq * d, hkv * d).view({b, t, hkv, d}).transpose(1, 2), cos, sin);
  }
  run(HookSite::Keys, k);
  run(HookSite::Values, v);

  const bool prefix = cache.empty(l) || cache.is_prefix(l);
  cache.append(l, k, v, start_pos);
  ops::AttentionInputs in{q, cache.keys(l), cache.values(l), positions, cache.positions(l),
                          prefix && cache.length(l) == start_pos + t, cache.key_mask(l)};
  auto attn = ops::causal_attention(in);

  if (phase == Phase::Prefill && hooks) {
    // One tensor per distinct window, so that each observer gets what it would get alone.
    for (const int64_t window : hooks->windows(HookSite::AttnWindow, l)) {
      auto probs = ops::window_attention_probs(in, std::min<int64_t>(window, t));
      hooks->run_window(HookContext{HookSite::AttnWindow, l, phase, &positions}, window, probs);
    }
    for (const int64_t window : hooks->windows(HookSite::AttnColumnSum, l)) {
      auto sums = ops::attention_column_sums(in, std::min<int64_t>(window, t));
      hooks->run_window(HookContext{HookSite::AttnColumnSum, l, phase, &positions}, window, sums);
    }
  }

  attn = attn.transpose(1, 2).reshape({b, t, hq * d});
  hidden = hidden + ops::linear(attn, w.wo);
  run(HookSite::AttnResidual, hidden);
  auto h2 = ops::rms_norm(hidden, w.ffn_norm, config_.rms_norm_eps);
  hidden = hidden + ops::swiglu_mlp_fused(h2, w.w_gate_up, w.w_down);
  run(HookSite::LayerOutput, hidden);
  return hidden;
}

at::Tensor LlamaModel::run_layers(at::Tensor hidden, int64_t start_pos, int64_t first, int64_t last,
                                  KVCache& cache, const HookRegistry* hooks, Phase phase) const {
  if (first < 0 || last > num_layers() || first > last) {
    throw std::out_of_range(fmt::format("run_layers: [{}, {}) outside [0, {}]", first, last, num_layers()));
  }
  const int64_t t = hidden.size(1);
  auto positions = at::arange(start_pos, start_pos + t, at::TensorOptions().dtype(at::kLong).device(device()));
  auto [cos, sin] = ops::rope_cos_sin(inv_freq_, positions);
  if (t > 1) {  // a prompt: every empty layer's cache storage before any layer's transients
    const auto like = at::empty({hidden.size(0), config_.num_kv_heads, 0, config_.head_dim}, hidden.options());
    for (int64_t l = first; l < last; ++l) cache.reserve(l, start_pos + t, like);
  }
  for (int64_t l = first; l < last; ++l) {
    hidden = layer_forward(l, hidden, start_pos, positions, cos, sin, cache, hooks, phase);
  }
  return hidden;
}

at::Tensor LlamaModel::logits(const at::Tensor& hidden, const HookRegistry* hooks, Phase phase,
                              LogitsFor which) const {
  auto h = which == LogitsFor::LastToken ? hidden.narrow(1, hidden.size(1) - 1, 1) : hidden;
  h = ops::rms_norm(h, weights_.final_norm, config_.rms_norm_eps);
  auto out = ops::linear(h, weights_.lm_head).to(at::kFloat);
  if (hooks && hooks->wants(HookSite::Logits, -1)) {
    hooks->run(HookContext{HookSite::Logits, -1, phase, nullptr}, out);
  }
  return out;
}

at::Tensor LlamaModel::forward(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks, Phase phase,
                               LogitsFor which) const {
  if (cache.num_layers() != num_layers()) {
    throw std::invalid_argument(fmt::format("KV cache has {} layers, the model {}", cache.num_layers(), num_layers()));
  }
  const int64_t start = cache.next_position();
  auto hidden = embed(tokens);
  hidden = run_layers(hidden, start, 0, num_layers(), cache, hooks, phase);
  return logits(hidden, hooks, phase, which);
}

at::Tensor LlamaModel::prefill(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks,
                               LogitsFor which) const {
  return forward(tokens, cache, hooks, Phase::Prefill, which);
}

at::Tensor LlamaModel::decode(const at::Tensor& tokens, KVCache& cache, const HookRegistry* hooks) const {
  if (tokens.dim() != 2 || tokens.size(1) != 1) throw std::invalid_argument("decode: tokens must be [batch, 1]");
  return forward(tokens, cache, hooks, Phase::Decode, LogitsFor::LastToken);
}

}  // namespace ripplekv
