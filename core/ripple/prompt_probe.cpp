#include "core/ripple/prompt_probe.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

#include "core/ripple/sensitivity_profiler.h"

namespace ripplekv {

at::Tensor probe_prompt_sensitivity(const CausalLM& model, const KVCache& cache, const at::Tensor& window_input,
                                    const PromptProbeOptions& o) {
  const int64_t L = model.num_layers();
  if (cache.num_layers() != L) {
    throw std::invalid_argument(fmt::format("prompt probe: the cache has {} layers, the model {}", cache.num_layers(), L));
  }
  if (window_input.dim() != 3 || window_input.size(0) != 1) {
    throw std::invalid_argument("prompt probe: expected the window's layer-0 input as [1, W, hidden] (ripple_prompt "
                                "measures one sequence per prefill)");
  }
  const int64_t n = cache.length(0);
  const int64_t w = window_input.size(1);
  for (int64_t l = 0; l < L; ++l) {
    if (cache.length(l) != n || !cache.is_prefix(l) || cache.batch_size() != 1) {
      throw std::invalid_argument(fmt::format("prompt probe: layer {} does not hold the whole prompt of one sequence "
                                              "(ripple_prompt measures one sequence per prefill, before compressing)",
                                              l));
    }
  }
  if (o.draws < 1) {
    throw std::invalid_argument(fmt::format("prompt probe: draws={} (noise draws per layer) must be >= 1", o.draws));
  }
  if (w < 1) throw std::invalid_argument("prompt probe: the replayed window is empty (kl_positions= must be >= 1)");
  if (w >= n) {
    throw std::invalid_argument(fmt::format("prompt probe: replaying the last {} tokens needs a prompt longer than {} "
                                            "(use a smaller kl_positions= option)", w, n));
  }
  const int64_t context = n - w;

  // One copy of the context, reused by every replay: a replay appends the window to layers
  // l..L-1, and truncating them to the context undoes it.
  std::vector<at::Tensor> keys(static_cast<size_t>(L)), values(static_cast<size_t>(L));
  KVCache probe(L);
  probe.set_headroom(w);
  for (int64_t l = 0; l < L; ++l) {
    keys[l] = cache.keys(l).narrow(2, 0, context);
    values[l] = cache.values(l).narrow(2, 0, context);
    probe.append(l, keys[l], values[l], 0);
  }

  // Clean replay: the reference distributions and every layer's input for the window.
  std::vector<at::Tensor> inputs(static_cast<size_t>(L));
  at::Tensor clean;
  {
    HookRegistry hooks;
    HookHandle keep = hooks.add(HookSite::LayerInput, HookRegistry::kAllLayers,
                                [&](const HookContext& ctx, at::Tensor& h) { inputs[ctx.layer] = h.clone(); });
    auto out = model.run_layers(window_input, context, 0, L, probe, &hooks, Phase::Prefill);
    clean = model.logits(out, nullptr, Phase::Prefill, LogitsFor::AllTokens);
  }
  std::vector<at::Tensor> kl(static_cast<size_t>(L));
  for (int64_t l = 0; l < L; ++l) {
    std::vector<at::Tensor> per_draw;
    for (int64_t d = 0; d < o.draws; ++d) {
      for (int64_t j = l; j < L; ++j) probe.truncate(j, context);
      probe.truncate(l, 0);
      probe.append(l, keys[l],
                   perturb_values(values[l], o.noise, {noise_seed(o.seed, 0, l, static_cast<uint64_t>(d))}, context), 0);
      auto out = model.run_layers(inputs[l], context, l, L, probe, nullptr, Phase::Prefill);
      per_draw.push_back(
          kl_divergence(clean, model.logits(out, nullptr, Phase::Prefill, LogitsFor::AllTokens), o.direction)
              .reshape({w}));
    }
    kl[l] = at::cat(per_draw);
    inputs[l] = at::Tensor();  // layer l stays perturbed: later replays start above it
  }
  auto all = at::stack(kl).to(at::kDouble).cpu().contiguous();  // one host sync
  if (!at::isfinite(all).all().item<bool>()) {
    throw std::runtime_error("prompt probe: a NaN or Inf KL divergence (the model's logits are not finite); check the "
                             "weights and --dtype");
  }
  return all;
}

}  // namespace ripplekv
