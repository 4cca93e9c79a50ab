// Benchmark (not a test): RippleKV profiler with suffix recomputation vs the naive full
// re-forward per layer, on the same random model, samples and seeds. Validates first that
// both give the same profile, then prints both timings and the speed-up. The ideal for L
// layers is (L + 1) / (1 + (L + 1) / 2) passes saved (1.84x at L = 22, 1.89x at L = 32).
//
//   build/ripplekv_bench_profiler --layers 22 --hidden 512 --tokens 256 --samples 2
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "core/ripple/sensitivity_profiler.h"
#include "bench_cli.h"
#include "random_model.h"

using namespace ripplekv;
namespace po = boost::program_options;

int main(int argc, char** argv) try {
  bench::ShapeOptions shape{22, 512, 8, 2, 1408, 32000};
  int64_t tokens = 256, samples = 2, draws = 1;
  int threads = 0;
  po::options_description desc("ripplekv_bench_profiler options");
  desc.add_options()("help,h", "help");
  shape.add_to(desc);
  desc.add_options()("tokens", po::value(&tokens)->default_value(tokens), "tokens per sample")(
      "samples", po::value(&samples)->default_value(samples), "calibration samples")(
      "draws", po::value(&draws)->default_value(draws), "noise draws");
  bench::add_threads_option(desc, threads);
  if (!bench::parse_args(desc, argc, argv)) return 0;
  bench::set_threads(threads);
  const int64_t layers = shape.layers, hidden = shape.hidden, vocab = shape.vocab;
  at::manual_seed(0);
  const auto c = bench::llama_shape(layers, hidden, shape.heads, shape.kv_heads, shape.inter, vocab, 4096);
  auto mw = bench::random_weights(c, at::kFloat);
  LlamaModel model(c, mw);
  std::vector<std::vector<int64_t>> data;
  for (int64_t s = 0; s < samples; ++s) {
    auto t = at::randint(3, vocab, {tokens}, at::kLong);
    data.emplace_back(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + tokens);
  }
  ProfilerOptions o;
  o.draws = draws;
  auto time_it = [&](bool suffix) {
    o.suffix_recompute = suffix;
    auto t0 = std::chrono::steady_clock::now();
    auto r = profile_sensitivity(model, data, o);
    return std::make_pair(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), r);
  };
  (void)time_it(true);  // warm-up
  auto [suffix_s, suffix] = time_it(true);
  auto [naive_s, naive] = time_it(false);
  double max_rel = 0;
  for (int64_t l = 0; l < layers; ++l) {
    const double a = suffix.layers[l].mean, b = naive.layers[l].mean;
    max_rel = std::max(max_rel, std::abs(a - b) / std::max(std::abs(b), 1e-30));
  }
  if (max_rel > 1e-9) {
    std::cerr << fmt::format("error: suffix and naive profiles differ (max relative difference {:.3g})\n", max_rel);
    return 1;
  }
  const double ideal = (layers + 1.0) / (1.0 + (layers + 1.0) / 2.0);
  std::cout << fmt::format(
      "RESULT bench=profiler layers={} hidden={} tokens={} samples={} draws={} threads={} naive_s={:.2f} "
      "suffix_s={:.2f} speedup={:.2f} ideal={:.2f} profiles_equal=1\n",
      layers, hidden, tokens, samples, draws, at::get_num_threads(), naive_s, suffix_s, naive_s / suffix_s, ideal);
  return 0;
} catch (const std::exception& e) {
  std::cerr << "error: " << e.what() << "\n";
  return 1;
}
