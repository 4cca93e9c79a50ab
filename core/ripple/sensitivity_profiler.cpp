#include "core/ripple/sensitivity_profiler.h"

#include "core/ripple/sensitivity_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace ripplekv {

uint64_t noise_seed(uint64_t base, int64_t sample, int64_t layer, int64_t draw) {
  // splitmix64 over a combination of the indices: independent streams per (sample, layer, draw).
  uint64_t x = base ^ (static_cast<uint64_t>(sample) * 0x9E3779B97F4A7C15ULL) ^
               (static_cast<uint64_t>(layer) * 0xBF58476D1CE4E5B9ULL) ^ (static_cast<uint64_t>(draw) * 0x94D049BB133111EBULL);
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

SensitivityProfileResult profile_sensitivity(const CausalLM& model, const std::vector<TokenIds>& samples,
                                             const ProfilerOptions& o, const ProfilerProgress& progress) {
  const auto t_start = std::chrono::steady_clock::now();
  if (samples.empty()) throw std::invalid_argument("profile: no calibration samples");
  if (o.kl_positions < 1) throw std::invalid_argument("profile: kl-positions must be >= 1");
  if (o.draws < 1) throw std::invalid_argument("profile: draws must be >= 1");
  if (!(o.noise.eps >= 0) || !std::isfinite(o.noise.eps)) {
    throw std::invalid_argument(fmt::format("profile: --eps {} must be a finite number >= 0", o.noise.eps));
  }
  const int64_t L = model.num_layers();
  const int64_t batch = o.max_batch > 0 ? std::min(o.max_batch, o.draws) : o.draws;

  std::vector<std::vector<double>> kl_all(L), sample_means(L), draw_means(L);
  std::vector<int64_t> same_top(L, 0), positions(L, 0);

  for (size_t si = 0; si < samples.size(); ++si) {
    const auto& ids = samples[si];
    const auto t = static_cast<int64_t>(ids.size());
    if (t < 2) throw std::invalid_argument(fmt::format("profile: calibration sample {} has fewer than 2 tokens", si));
    const int64_t k = std::min(o.kl_positions, t);
    const int64_t perturb_len = o.noise.positions == NoisePositions::All ? t : t - k;
    auto tokens = at::tensor(ids, at::kLong).view({1, t});

    // Clean pass: reference logits and every layer's input hidden states. It runs at the
    // same batch size as the perturbed passes so that every pass has identical tensor
    // shapes: the kernels then round identically and eps = 0 gives exactly KL = 0.
    std::vector<at::Tensor> layer_inputs(static_cast<size_t>(L));
    at::Tensor clean_logits, clean_top;
    auto batch_tokens = tokens.expand({batch, t}).contiguous();
    {
      HookRegistry hooks;
      HookHandle keep_inputs;
      if (o.suffix_recompute) {
        keep_inputs = hooks.add(HookSite::LayerInput, HookRegistry::kAllLayers,
                                [&](const HookContext& ctx, at::Tensor& h) { layer_inputs[ctx.layer] = h; });
      }
      KVCache cache(L);
      auto hidden = model.run_layers(model.embed(batch_tokens), 0, 0, L, cache, &hooks, Phase::Prefill);
      clean_logits = model.logits(hidden.narrow(1, t - k, k), nullptr, Phase::Prefill, LogitsFor::AllTokens);
      clean_top = clean_logits.argmax(-1);  // [batch, K]
    }

    for (int64_t l = 0; l < L; ++l) {
      std::vector<at::Tensor> per_draw_kl;  // [bs, K] float64 per batch
      at::Tensor same = at::zeros({}, at::kLong);
      for (int64_t r0 = 0; r0 < o.draws; r0 += batch) {
        // A last, partial batch is padded to the full batch size (same shapes as the clean
        // pass); the padding rows are discarded.
        const int64_t bs = std::min(batch, o.draws - r0);
        std::vector<uint64_t> seeds;
        for (int64_t r = r0; r < r0 + batch; ++r) seeds.push_back(noise_seed(o.seed, static_cast<int64_t>(si), l, r));
        HookRegistry hooks;
        ValuePerturbation noise(hooks, l, o.noise, seeds, perturb_len);
        KVCache cache(L);
        at::Tensor out;
        if (o.suffix_recompute) {
          out = model.run_layers(layer_inputs[l], 0, l, L, cache, &hooks, Phase::Prefill);
        } else {
          out = model.run_layers(model.embed(batch_tokens), 0, 0, L, cache, &hooks, Phase::Prefill);
        }
        auto logits = model.logits(out.narrow(1, t - k, k), nullptr, Phase::Prefill, LogitsFor::AllTokens)
                          .narrow(0, 0, bs);  // [bs, K, V]
        per_draw_kl.push_back(kl_divergence(clean_logits.narrow(0, 0, bs), logits, o.direction).cpu());
        same = same + (logits.argmax(-1) == clean_top.narrow(0, 0, bs)).sum().cpu();
      }
      if (o.suffix_recompute) layer_inputs[l] = at::Tensor();  // no longer needed
      auto kl = at::cat(per_draw_kl, 0).contiguous();  // [R, K]
      const double* p = kl.data_ptr<double>();
      for (int64_t i = 0; i < kl.numel(); ++i) {
        if (!std::isfinite(p[i])) {
          throw std::runtime_error(fmt::format("profile: layer {} gave a NaN or Inf KL divergence (the model's logits are "
                                               "not finite); check the weights and --dtype", l));
        }
      }
      kl_all[l].insert(kl_all[l].end(), p, p + kl.numel());
      auto dm = kl.mean(1);
      for (int64_t r = 0; r < o.draws; ++r) draw_means[l].push_back(dm[r].item<double>());
      sample_means[l].push_back(kl.mean().item<double>());
      same_top[l] += same.item<int64_t>();
      positions[l] += o.draws * k;
    }
    if (progress) progress(static_cast<int64_t>(si) + 1, static_cast<int64_t>(samples.size()));
  }

  SensitivityProfileResult res;
  res.samples = static_cast<int64_t>(samples.size());
  for (int64_t l = 0; l < L; ++l) {
    LayerSensitivity s;
    const auto& v = draw_means[l];
    const double n = static_cast<double>(v.size());
    for (double x : v) s.mean += x / n;
    double var = 0;
    for (double x : v) var += (x - s.mean) * (x - s.mean);
    s.stderr_mean = v.size() > 1 ? std::sqrt(var / (n - 1)) / std::sqrt(n) : 0.0;
    s.p50 = percentile(kl_all[l], 0.5);
    s.p90 = percentile(kl_all[l], 0.9);
    s.max = kl_all[l].empty() ? 0 : *std::max_element(kl_all[l].begin(), kl_all[l].end());
    s.same_top_rate = positions[l] ? static_cast<double>(same_top[l]) / static_cast<double>(positions[l]) : 1.0;
    s.per_sample = sample_means[l];
    res.layers.push_back(std::move(s));
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  return res;
}

}  // namespace ripplekv
