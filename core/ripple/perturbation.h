// RippleKV's perturbation engine: norm-adaptive noise injected into ONE layer's value cache
// through the Values hook site (the values of the new tokens, before they are cached).
//
//   relative (default):  v' = v + eps * (||v|| / sqrt(D)) * z    per token and KV head
//   layer_mean:          v' = v + eps * (mean ||v|| / sqrt(D)) * z   one scale for the layer
//   multiplicative:      v' = v * (1 + eps * z)
// z ~ N(0, I) from a seeded CPU generator (so CPU and CUDA runs see the same noise). ||v|| /
// sqrt(D) is the RMS of a value vector, so eps is the noise-to-signal ratio per component.
#pragma once

#include <ATen/ATen.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/hooks/hooks.h"

namespace ripplekv {

enum class NoiseMode { Relative, LayerMean, Multiplicative };
enum class NoisePositions { All, Context };  // Context: all but the last `eval_positions` tokens

struct NoiseSpec {
  double eps = 0.1;
  NoiseMode mode = NoiseMode::LayerMean;  // the ripple option `noise` default (ripple_options.cpp)
  NoisePositions positions = NoisePositions::All;
};
NoiseMode parse_noise_mode(const std::string& name);
NoisePositions parse_noise_positions(const std::string& name);
std::string noise_mode_name(NoiseMode m);
std::string noise_positions_name(NoisePositions p);

// Returns perturbed values for v [B, Hkv, T, D]; batch element b uses seeds[b]. Only tokens
// [0, perturb_len) change. eps == 0 returns v itself (bit-identical).
at::Tensor perturb_values(const at::Tensor& v, const NoiseSpec& spec, const std::vector<uint64_t>& seeds,
                          int64_t perturb_len);

// Registers a Values hook on `layer` (prefill only) applying perturb_values; removed when
// this object goes out of scope.
class ValuePerturbation {
 public:
  ValuePerturbation(HookRegistry& hooks, int64_t layer, NoiseSpec spec, std::vector<uint64_t> seeds,
                    int64_t perturb_len);

 private:
  HookHandle handle_;
};

}  // namespace ripplekv
