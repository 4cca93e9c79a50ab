// A sensitivity profile on disk (JSON, plus a CSV of the per-layer statistics): what was
// measured, on which model and calibration set, with which settings. Torch-free.
#pragma once

#include "models/config/model_identity.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ripplekv {

struct LayerSensitivityRecord {
  double mean = 0, stderr_mean = 0, p50 = 0, p90 = 0, max = 0, same_top_rate = 0;
  // The mean KL of each calibration text used (over its positions and draws), in calibration
  // order; empty in profiles written before they were saved (and in hand-made ones). Every
  // layer has the same count, or none has any.
  std::vector<double> per_text;
};

struct SensitivityProfile {
  // Model identity.
  std::string model_path;
  std::string model_architecture;
  int64_t num_layers = 0;
  int64_t hidden_size = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t vocab_size = 0;
  std::string weights_fingerprint;
  std::string dtype;
  std::string device;
  // Calibration.
  std::string calibration_path;
  std::string calibration_hash;
  std::string calibration_format;
  int64_t samples = 0;
  int64_t skip = 0;  // texts of the file passed over before the first sample
  int64_t max_tokens = 0;
  // Settings.
  double eps = 0;
  std::string noise_mode;
  std::string positions;
  int64_t kl_positions = 0;
  int64_t draws = 0;
  uint64_t seed = 0;
  std::string kl_direction;
  double seconds = 0;
  std::vector<LayerSensitivityRecord> layers;

  // mean | p50 | p90 | max (over every text, position and draw) | text_median (the median over
  // texts of each text's mean: one text's outlying KL moves it less than the mean).
  std::vector<double> scores(const std::string& statistic) const;
};

void write_profile_json(const SensitivityProfile& p, const std::string& path);
void write_profile_csv(const SensitivityProfile& p, const std::string& path);
// Throws std::invalid_argument naming the file and key when malformed.
SensitivityProfile read_profile_json(const std::string& path);

// The q-quantile of `v` (q in [0, 1]) with linear interpolation, numpy's default; 0 when empty.
// The per-layer p50/p90 of a profile, its text_median score and the KL p90 of a fidelity row.
double percentile(std::vector<double> v, double q);

// Throws when the profile was measured on a different model (layer count or checkpoint
// fingerprint). A profile of the same checkpoint measured at another dtype or device is
// accepted; the returned notes say so. Profiles written before checkpoint fingerprints
// ("weights_fingerprint" without the "ckpt1:" prefix) carry a dtype-dependent fingerprint: they
// are accepted at the dtype they were measured in, and otherwise refused with the fix.
std::vector<std::string> check_profile_matches(const SensitivityProfile& p, const std::string& profile_path,
                                               int64_t num_layers, const ModelIdentity& model);

}  // namespace ripplekv
