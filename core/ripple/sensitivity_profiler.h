// RippleKV's KL sensitivity profiler: for each calibration sample, one clean forward gives
// the reference next-token distributions; then for each layer l, forwards with layer l's
// values perturbed (perturbation.h) give perturbed ones; the KL between them over the last K
// positions, averaged over R noise draws and the samples, is layer l's sensitivity.
//
// Efficiency: the clean pass stores every layer's input hidden states, and the pass for
// layer l recomputes only layers l..L-1 from there (layers before l cannot see the noise).
// The R draws of a layer run as one batch (max_batch caps it; the clean pass runs at the
// same batch size so that all passes share tensor shapes and round identically). `suffix_recompute = false` re-runs the whole
// network instead (the naive way, kept for tests and the benchmark); both give the same
// numbers because each (sample, layer, draw) has its own noise seed.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/ripple/kl_divergence.h"
#include "core/ripple/perturbation.h"
#include "models/model/causal_lm.h"
#include "models/tokenizer/token_id.h"

namespace ripplekv {

struct ProfilerOptions {
  NoiseSpec noise;
  int64_t kl_positions = 32;   // K: KL measured at the last K positions of each sample
  int64_t draws = 1;           // R noise draws per (sample, layer)
  uint64_t seed = 0;
  KlDirection direction = KlDirection::Forward;
  bool suffix_recompute = true;
  int64_t max_batch = 0;       // draws per batched pass (0 = all R at once)
};

struct LayerSensitivity {
  double mean = 0;            // mean KL over samples x draws (each the mean over K positions)
  double stderr_mean = 0;     // standard error of that mean (sample std / sqrt(n))
  double p50 = 0, p90 = 0, max = 0;  // over every (sample, draw, position) KL value
  double same_top_rate = 0;   // share of positions whose argmax token is unchanged
  std::vector<double> per_sample;  // mean KL per sample (over draws and positions)
};

struct SensitivityProfileResult {
  std::vector<LayerSensitivity> layers;
  int64_t samples = 0;
  double seconds = 0;
};

using ProfilerProgress = std::function<void(int64_t sample, int64_t num_samples)>;

SensitivityProfileResult profile_sensitivity(const CausalLM& model, const std::vector<TokenIds>& samples,
                                             const ProfilerOptions& options, const ProfilerProgress& progress = {});

// The noise seed of one (sample, layer, draw), shared by the suffix and naive paths.
uint64_t noise_seed(uint64_t base, int64_t sample, int64_t layer, int64_t draw);

}  // namespace ripplekv
