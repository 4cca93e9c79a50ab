// End-to-end profiling: calibration file -> tokenized samples -> sensitivity profile, and the
// on-the-fly path of the `ripple` allocator (profile once, cache by model and calibration).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/compress/compression.h"
#include "core/ripple/sensitivity_profile.h"
#include "core/ripple/sensitivity_profiler.h"
#include "models/model/causal_lm.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv {

class OpenedModel;

struct ProfileRequest {
  std::string calibration_path;
  std::string calibration_format = "auto";
  std::string text_field = "text";
  int64_t samples = 16;       // N texts of the file (those giving 2+ tokens) ...
  int64_t skip = 0;           // ... after passing over its first `skip` texts (disjoint calibration sets)
  int64_t max_tokens = 1024;  // each sample truncated to its first max_tokens tokens (BOS included)
  ProfilerOptions profiler;
  std::string model_path;
  std::string dtype = "float32";
};

SensitivityProfile run_profile(const CausalLM& model, const Tokenizer& tokenizer, const ProfileRequest& request,
                               const ProfilerProgress& progress = {});

// When spec uses the ripple allocator without profile= but with calibration=FILE, profiles
// (or reuses a cached profile under cache_dir keyed by checkpoint fingerprint, profiling dtype,
// calibration hash and settings) and sets profile=PATH. Recognised options, consumed here: calibration,
// calibration_samples, calibration_skip, calibration_max_tokens, kl_positions, draws, eps, noise,
// positions, direction, seed, profile_cache, profile_dtype.
// Checks a method's names, keys and values before any model is loaded (sweep --dry-run and
// the start of a sweep): CompressionMethod::check, plus the profiling keys above when ripple
// profiles on the fly. Throws std::invalid_argument naming the key.
void check_method_spec(CompressionSpec spec);

// profile_dtype=float32 (the default) on a model not in float32 profiles a float32 copy of the
// checkpoint, which load_float32 loads (only on a cache miss; it is freed after profiling).
// Without load_float32 such a spec throws, naming profile_dtype=run.
using Float32ModelLoader = std::function<std::unique_ptr<CausalLM>()>;
CompressionSpec resolve_ripple_profile(CompressionSpec spec, const CausalLM& model, const Tokenizer& tokenizer,
                                       const std::string& model_path, const Float32ModelLoader& load_float32 = {});
// The ripple allocator's prepare step in the registry (core/compress/registry.h):
// resolve_ripple_profile on the opened model, its tokenizer and path (loading the weights).
CompressionSpec prepare_ripple_spec(CompressionSpec spec, const OpenedModel& model);

}  // namespace ripplekv
