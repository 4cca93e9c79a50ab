#include "core/ripple/profile_runner.h"

#include "models/loaders/opened_model.h"

#include <c10/util/Exception.h>
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <stdexcept>

#include "core/ripple/calibration.h"
#include "core/ripple/ripple_options.h"

namespace ripplekv {

SensitivityProfile run_profile(const CausalLM& model, const Tokenizer& tok, const ProfileRequest& r,
                               const ProfilerProgress& progress) {
  if (r.samples < 1) throw std::invalid_argument("--samples must be >= 1");
  if (r.max_tokens < 2) throw std::invalid_argument("--max-tokens must be >= 2");
  if (r.skip < 0) throw std::invalid_argument("--skip must be >= 0");
  const auto cal = read_calibration(r.calibration_path, r.calibration_format, r.text_field);
  if (r.skip >= static_cast<int64_t>(cal.texts.size())) {
    throw std::invalid_argument(fmt::format("--calibration {}: --skip {} passes over all of its {} texts; lower --skip",
                                            r.calibration_path, r.skip, cal.texts.size()));
  }
  std::vector<TokenIds> samples;
  for (size_t i = static_cast<size_t>(r.skip); i < cal.texts.size(); ++i) {
    const auto& text = cal.texts[i];
    if (static_cast<int64_t>(samples.size()) >= r.samples) break;
    auto ids = tok.encode(text, /*add_bos=*/true);
    if (static_cast<int64_t>(ids.size()) > r.max_tokens) ids.resize(static_cast<size_t>(r.max_tokens));
    if (ids.size() < 2) continue;
    samples.push_back(std::move(ids));
  }
  if (samples.empty()) {
    throw std::invalid_argument(fmt::format("--calibration {}: no text gives 2 or more tokens", r.calibration_path));
  }
  const auto res = profile_sensitivity(model, samples, r.profiler, progress);
  const auto& c = model.config();
  SensitivityProfile p;
  p.model_path = r.model_path;
  p.model_architecture = c.architecture;
  p.num_layers = c.num_layers;
  p.hidden_size = c.hidden_size;
  p.num_heads = c.num_heads;
  p.num_kv_heads = c.num_kv_heads;
  p.vocab_size = c.vocab_size;
  const ModelIdentity id = model.identity();
  p.weights_fingerprint = id.fingerprint;
  p.dtype = id.dtype;
  p.device = id.device;
  p.calibration_path = cal.path;
  p.calibration_hash = cal.hash;
  p.calibration_format = cal.format;
  p.samples = res.samples;
  p.skip = r.skip;
  p.max_tokens = r.max_tokens;
  p.eps = r.profiler.noise.eps;
  p.noise_mode = noise_mode_name(r.profiler.noise.mode);
  p.positions = noise_positions_name(r.profiler.noise.positions);
  p.kl_positions = r.profiler.kl_positions;
  p.draws = r.profiler.draws;
  p.seed = r.profiler.seed;
  p.kl_direction = kl_direction_name(r.profiler.direction);
  p.seconds = res.seconds;
  for (const auto& l : res.layers) {
    p.layers.push_back({l.mean, l.stderr_mean, l.p50, l.p90, l.max, l.same_top_rate, l.per_sample});
  }
  return p;
}

namespace {

// Takes the on-the-fly profiling keys off spec.options (so that the allocator does not see
// them) and checks their values.
ProfileRequest take_profiling_options(CompressionSpec& spec, std::string& cache_dir, bool& in_float32) {
  auto take = [&](const char* key, const std::string& fallback) {
    auto it = spec.options.find(key);
    if (it == spec.options.end()) return fallback;
    auto v = it->second;
    spec.options.erase(it);
    return v;
  };
  ProfileRequest r;
  r.calibration_path = take("calibration", "");
  if (r.calibration_path.empty()) {
    throw std::invalid_argument("ripple: give profile=PATH (from `ripplekv profile`) or calibration=FILE to profile "
                                "on the fly");
  }
  auto to_int = [](const std::string& key, const std::string& v) {
    try {
      std::size_t used = 0;
      const long long n = std::stoll(v, &used);
      if (used != v.size()) throw std::invalid_argument(v);
      return n;
    } catch (const std::exception&) {
      throw std::invalid_argument(fmt::format("ripple: {}={} is not an integer", key, v));
    }
  };
  r.samples = to_int("calibration_samples", take("calibration_samples", ripple_option_default("calibration_samples")));
  r.skip = to_int("calibration_skip", take("calibration_skip", ripple_option_default("calibration_skip")));
  r.profiler.noise.mode = parse_noise_mode(take("noise", ripple_option_default("noise")));
  r.profiler.noise.positions = parse_noise_positions(take("positions", ripple_option_default("positions")));
  r.profiler.direction = parse_kl_direction(take("direction", ripple_option_default("direction")));
  const auto seed = to_int("seed", take("seed", ripple_option_default("seed")));
  if (seed < 0) throw std::invalid_argument(fmt::format("ripple: seed={} must be >= 0", seed));
  r.profiler.seed = static_cast<uint64_t>(seed);
  r.max_tokens = to_int("calibration_max_tokens", take("calibration_max_tokens", ripple_option_default("calibration_max_tokens")));
  r.profiler.kl_positions = to_int("kl_positions", take("kl_positions", ripple_option_default("kl_positions")));
  r.profiler.draws = to_int("draws", take("draws", ripple_option_default("draws")));
  const std::string eps = take("eps", ripple_option_default("eps"));
  try {
    std::size_t used = 0;
    r.profiler.noise.eps = std::stod(eps, &used);
    if (used != eps.size()) throw std::invalid_argument(eps);
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("ripple: eps={} is not a number", eps));
  }
  const char* home = std::getenv("HOME");
  const std::string default_cache =
      std::getenv("RIPPLEKV_CACHE") ? std::string(std::getenv("RIPPLEKV_CACHE")) + "/profiles"
                                    : std::string(home ? home : ".") + "/.cache/ripplekv/profiles";
  cache_dir = take("profile_cache", default_cache);
  const std::string dtype = take("profile_dtype", ripple_option_default("profile_dtype"));
  if (dtype != "float32" && dtype != "run") {
    throw std::invalid_argument(fmt::format("ripple: profile_dtype={} is not float32 or run", dtype));
  }
  in_float32 = dtype == "float32";
  auto at_least = [](const char* key, double value, double least) {
    if (!(value >= least)) {
      throw std::invalid_argument(fmt::format("ripple: {}={} must be at least {}", key, value, least));
    }
  };
  at_least("calibration_samples", static_cast<double>(r.samples), 1);
  at_least("calibration_skip", static_cast<double>(r.skip), 0);
  at_least("calibration_max_tokens", static_cast<double>(r.max_tokens), 2);
  at_least("kl_positions", static_cast<double>(r.profiler.kl_positions), 1);
  at_least("draws", static_cast<double>(r.profiler.draws), 1);
  if (!(r.profiler.noise.eps > 0) || !std::isfinite(r.profiler.noise.eps)) {
    throw std::invalid_argument(fmt::format("ripple: eps={} must be a positive number (the noise scale, e.g. 0.1)",
                                            r.profiler.noise.eps));
  }
  return r;
}

}  // namespace

void check_method_spec(CompressionSpec spec) {
  if (spec.allocator == "ripple" && !spec.options.count("profile")) {
    std::string cache_dir;
    bool in_float32 = true;
    const auto r = take_profiling_options(spec, cache_dir, in_float32);
    if (!std::filesystem::is_regular_file(r.calibration_path)) {
      throw std::invalid_argument(fmt::format("ripple: calibration={}: no such file (a JSON lines or text file of "
                                              "calibration texts)",
                                              r.calibration_path));
    }
  }
  CompressionMethod::check(spec);
}

CompressionSpec resolve_ripple_profile(CompressionSpec spec, const CausalLM& model, const Tokenizer& tok,
                                       const std::string& model_path, const Float32ModelLoader& load_float32) {
  if (spec.allocator != "ripple" || spec.options.count("profile")) return spec;
  std::string cache_dir;
  bool in_float32 = true;
  ProfileRequest r = take_profiling_options(spec, cache_dir, in_float32);
  r.model_path = model_path;
  const std::string run_dtype = model.identity().dtype;
  // profile_dtype=float32 on a model in another dtype measures on a float32 copy of the same
  // checkpoint, loaded only when the cache misses.
  const bool copy = in_float32 && run_dtype != "float32";
  if (copy && !load_float32) {
    throw std::invalid_argument(fmt::format("ripple: profile_dtype=float32 on a {} model needs its checkpoint to "
                                            "load a float32 copy from; pass profile_dtype=run to profile in {}",
                                            run_dtype, run_dtype));
  }
  const std::string profile_dtype = copy ? "float32" : run_dtype;
  const auto cal = read_calibration(r.calibration_path);
  // Keyed on the checkpoint and the profiling dtype: a float32 profile is one entry whether a
  // float32 run or a bfloat16 run's float32 copy measured it; a profile_dtype=run profile of a
  // bf16 run is another. The checkpoint fingerprint does not depend on the dtype.
  // Settings added later join the key only when they differ from their original defaults
  // (relative noise on all positions, forward KL, seed 0, no skip), so that the cache entries
  // made before them keep their names; the noise default is now layer_mean, keyed as such.
  std::string later;
  if (r.skip != 0) later += fmt::format("|skip={}", r.skip);
  if (r.profiler.noise.mode != NoiseMode::Relative) later += "|noise=" + noise_mode_name(r.profiler.noise.mode);
  if (r.profiler.noise.positions != NoisePositions::All) later += "|positions=" + noise_positions_name(r.profiler.noise.positions);
  if (r.profiler.direction != KlDirection::Forward) later += "|direction=" + kl_direction_name(r.profiler.direction);
  if (r.profiler.seed != 0) later += fmt::format("|seed={}", r.profiler.seed);
  const auto key = fnv1a64_hex(fmt::format("{}|{}|{}|{}|{}|{}|{}|{}{}", model.fingerprint(), profile_dtype,
                                           cal.hash, r.samples, r.max_tokens, r.profiler.noise.eps,
                                           r.profiler.kl_positions, r.profiler.draws, later));
  const auto path = (std::filesystem::path(cache_dir) / fmt::format("profile-{}.json", key)).string();
  bool cached = std::filesystem::exists(path);
  if (cached) {
    try {
      const auto entry = read_profile_json(path);
      // Entries written before the per-text means were saved lack what score=text_median reads.
      const auto score = spec.options.count("score") ? spec.options.at("score") : ripple_option_default("score");
      if (score == "text_median" && !entry.layers.empty() && entry.layers[0].per_text.empty()) {
        std::cerr << fmt::format("[ripple] the cached profile {} has no per-text means (score=text_median reads "
                                 "them); profiling again\n", path);
        cached = false;
      }
    } catch (const std::exception& e) {
      // A cache entry is ripplekv's own file: a damaged one is measured again, not fatal.
      std::cerr << fmt::format("[ripple] the cached profile {} is damaged ({}); profiling again\n", path, e.what());
      cached = false;
    }
  }
  if (!cached) {
    std::cerr << fmt::format("[ripple] profiling {} layers in {} on {} (cached as {})\n", model.num_layers(),
                             profile_dtype, r.calibration_path, path);
    std::unique_ptr<CausalLM> float32_copy;
    if (copy) {
      try {
        float32_copy = load_float32();
      } catch (const c10::OutOfMemoryError&) {
        throw std::runtime_error(fmt::format(
            "ripple: out of memory loading a float32 copy of {} to profile in (profile_dtype=float32, beside the {} "
            "weights); make the profile apart with `ripplekv profile --dtype float32` (on --device cpu if need be) "
            "and pass profile=PATH, or profile in {} with profile_dtype=run",
            model_path, run_dtype, run_dtype));
      }
      if (float32_copy->fingerprint() != model.fingerprint()) {
        throw std::runtime_error(fmt::format("ripple: the checkpoint {} changed since this run loaded it (its "
                                             "float32 copy has another fingerprint); rerun the command",
                                             model_path));
      }
    }
    const auto start = std::chrono::steady_clock::now();
    write_profile_json(run_profile(copy ? *float32_copy : model, tok, r,
                                   [&](int64_t done, int64_t total) {
                                     const double spent =
                                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
                                     const double left = done > 0 ? spent / static_cast<double>(done) *
                                                                        static_cast<double>(total - done)
                                                                  : 0.0;
                                     std::cerr << fmt::format("[ripple] profile sample {}/{}, {:.0f} s spent, about "
                                                              "{:.0f} s left\n",
                                                              done, total, spent, left);
                                   }),
                       path);
  }
  spec.options["profile"] = path;
  return spec;
}

CompressionSpec prepare_ripple_spec(CompressionSpec spec, const OpenedModel& model) {
  return resolve_ripple_profile(std::move(spec), model.model(), model.tokenizer(), model.path(), [&model] {
    LoadOptions float32 = model.load_options();
    float32.dtype = at::kFloat;
    return load_model(model.path(), float32);
  });
}

}  // namespace ripplekv
