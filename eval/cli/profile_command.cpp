// `ripplekv profile`: RippleKV's per-layer KL sensitivity profile of a model.
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include <iostream>

#include "eval/cli/command.h"
#include "eval/progress_bar.h"
#include "core/ripple/profile_runner.h"
#include "core/ripple/ripple_options.h"
#include "models/loaders/opened_model.h"

namespace ripplekv::cli {

int run_profile(const std::vector<std::string>& args) {
  RuntimeArgs rt;
  ProfileRequest req;
  std::string out, noise = ripple_option_default("noise"), positions = "all", direction = "forward";
  bool naive = false;
  int64_t seed = 0;
  po::options_description desc;
  add_runtime_options(desc, rt);
  desc.add_options()("calibration", po::value<std::string>(&req.calibration_path)->required(),
                     "calibration texts: .txt (one per line or per blank-line block), .jsonl, a LongBench .jsonl or a MiniLongBench .json")(
      "calibration-format", po::value<std::string>(&req.calibration_format)->default_value("auto"),
      "auto | lines | blocks | jsonl | longbench | minilongbench")(
      "text-field", po::value<std::string>(&req.text_field)->default_value("text"), "JSON lines text field")(
      "samples", po::value<int64_t>(&req.samples)->default_value(16), "calibration samples (the first N texts after --skip)")(
      "skip", po::value<int64_t>(&req.skip)->default_value(0),
      "calibration texts to pass over first (a disjoint calibration set: --skip 16 after --samples 16)")(
      "max-tokens", po::value<int64_t>(&req.max_tokens)->default_value(1024), "tokens per sample at most")(
      "eps", po::value<double>(&req.profiler.noise.eps)->default_value(0.1),
      "noise scale: noise-to-signal ratio per value component")(
      "noise", po::value<std::string>(&noise)->default_value(noise), "relative | layer_mean | multiplicative")(
      "positions", po::value<std::string>(&positions)->default_value(positions),
      "perturbed tokens: all | context (all but the last kl-positions)")(
      "kl-positions", po::value<int64_t>(&req.profiler.kl_positions)->default_value(32),
      "KL measured at the last K positions")(
      "draws", po::value<int64_t>(&req.profiler.draws)->default_value(1), "noise draws per sample and layer")(
      "seed", po::value<int64_t>(&seed)->default_value(0), "noise seed")(
      "direction", po::value<std::string>(&direction)->default_value(direction),
      "forward KL(clean||perturbed) | reverse | symmetric")(
      "batch", po::value<int64_t>(&req.profiler.max_batch)->default_value(0), "draws per batched pass (0 = all)")(
      "naive", po::bool_switch(&naive), "re-run the whole network per layer (slower; for checking)")(
      "out", po::value<std::string>(&out)->required(), "profile JSON to write (a .csv is written beside it)");
  po::variables_map vm;
  if (!parse_options("profile", args, desc, vm)) return 0;
  require_out_file(out);
  apply_threads(rt.threads);
  if (req.profiler.max_batch < 0) throw UsageError(fmt::format("--batch {}: must be >= 0 (0 = all draws at once)", req.profiler.max_batch));
  if (req.profiler.kl_positions < 1 || req.profiler.kl_positions > req.max_tokens) {
    throw UsageError(fmt::format("--kl-positions {} must be between 1 and --max-tokens ({})", req.profiler.kl_positions,
                                 req.max_tokens));
  }
  req.profiler.noise.mode = parse_noise_mode(noise);
  req.profiler.noise.positions = parse_noise_positions(positions);
  if (positions == "context" && req.profiler.kl_positions >= req.max_tokens) {
    throw UsageError(fmt::format("--positions context perturbs all but the last --kl-positions {} tokens, and "
                                 "--max-tokens {} leaves none: lower --kl-positions or raise --max-tokens",
                                 req.profiler.kl_positions, req.max_tokens));
  }
  req.profiler.direction = parse_kl_direction(direction);
  req.profiler.seed = static_cast<uint64_t>(seed);
  req.profiler.suffix_recompute = !naive;
  req.model_path = rt.model;
  req.dtype = rt.dtype;

  const OpenedModel opened(rt.model, rt.tokenizer, {parse_dtype(rt.dtype), parse_device(rt.device)});
  const int64_t context = opened.config().max_position_embeddings;
  if (context > 0 && req.max_tokens > context) {
    throw UsageError(fmt::format("--max-tokens {} exceeds the model's {}-token context", req.max_tokens, context));
  }
  // A progress line with the time left (redrawn on a terminal, plain lines in logs).
  std::unique_ptr<eval::ProgressBar> bar;
  auto last = std::chrono::steady_clock::now();
  auto profile = run_profile(opened.model(), opened.tokenizer(), req, [&](int64_t done, int64_t total) {
    if (!bar) bar = std::make_unique<eval::ProgressBar>("profile samples", static_cast<std::size_t>(total), 0);
    const auto now = std::chrono::steady_clock::now();
    eval::ProgressBar::SampleStats stats;
    stats.wall_seconds = std::chrono::duration<double>(now - last).count();
    last = now;
    bar->sample_done(stats);
    if (done == total) bar->finish();
  });
  write_profile_json(profile, out);
  const auto csv = out.size() > 5 && out.substr(out.size() - 5) == ".json" ? out.substr(0, out.size() - 5) + ".csv"
                                                                           : out + ".csv";
  write_profile_csv(profile, csv);
  std::cout << fmt::format("| layer | mean KL | stderr | p50 | p90 | max | same top-1 |\n|---|---|---|---|---|---|---|\n");
  for (size_t l = 0; l < profile.layers.size(); ++l) {
    const auto& s = profile.layers[l];
    std::cout << fmt::format("| {} | {:.4g} | {:.2g} | {:.4g} | {:.4g} | {:.4g} | {:.3f} |\n", l, s.mean,
                             s.stderr_mean, s.p50, s.p90, s.max, s.same_top_rate);
  }
  std::cerr << fmt::format("{} samples x {} layers x {} draws in {:.1f} s; wrote {} and {}\n", profile.samples,
                           profile.num_layers, profile.draws, profile.seconds, out, csv);
  return 0;
}

}  // namespace ripplekv::cli
