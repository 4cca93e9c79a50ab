// Benchmark (not a test): prefill tokens/s and decode ms/token of a TinyLlama-1.1B-shaped
// model with random weights, at several prompt lengths, plus the machine's measured
// matrix-multiply peak so prefill GFLOP/s can be read against it. Prints one table row per
// (dtype, length) as "RESULT key=value ..." lines that scripts/bench.sh joins with HF's.
//
//   build/ripplekv_bench --lengths 512,2048,8192 --dtypes float32,bfloat16 --threads 2
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "core/compress/compression.h"
#include "models/llama/llama_model.h"
#include "models/loaders/load_model.h"
#include "random_model.h"

using namespace ripplekv;
namespace po = boost::program_options;

namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

long peak_rss_kib() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

std::vector<int64_t> parse_list(const std::string& s) {
  std::vector<int64_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(std::stoll(item));
  return out;
}

ModelConfig tinyllama_config(int64_t layers) { return bench::llama_shape(layers, 2048, 32, 4, 5632, 32000, 16384); }

// FLOPs of a causal prefill of T tokens (multiply-adds x 2): projections, MLP, head on the
// last token, and attention scores + weighted sum over the causal half.
double prefill_flops(const ModelConfig& c, int64_t t) {
  const double h = c.hidden_size, qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  const double per_token_layer = 2 * (h * qd + 2 * h * kvd + qd * h + 3 * h * c.intermediate_size);
  const double attn_layer = 2.0 * 2.0 * c.num_heads * c.head_dim * (static_cast<double>(t) * (t + 1) / 2);
  return c.num_layers * (per_token_layer * t + attn_layer) + 2.0 * h * c.vocab_size;
}

double matmul_peak_gflops(at::ScalarType dtype) {
  const int64_t n = 2048;
  auto a = at::randn({n, n}).to(dtype), b = at::randn({n, n}).to(dtype);
  at::mm(a, b);  // warm-up
  const int reps = 5;
  double t0 = now();
  for (int i = 0; i < reps; ++i) at::mm(a, b);
  return 2.0 * n * n * n * reps / (now() - t0) / 1e9;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string lengths_s = "512,2048,8192", dtypes_s = "float32,bfloat16", device_s = "cpu", budgets_s = "128,512";
  int threads = 0, decode_steps = 16;
  int64_t layers = 22;
  po::options_description desc("ripplekv_bench options");
  desc.add_options()("help,h", "help")("lengths", po::value(&lengths_s)->default_value(lengths_s), "prompt lengths")(
      "dtypes", po::value(&dtypes_s)->default_value(dtypes_s), "float32,bfloat16,float16")(
      "device", po::value(&device_s)->default_value(device_s), "cpu | cuda")(
      "threads", po::value(&threads)->default_value(0), "CPU threads (0 = all cores)")(
      "layers", po::value(&layers)->default_value(22), "layers (22 = TinyLlama-1.1B)")(
      "decode-steps", po::value(&decode_steps)->default_value(16), "decode steps timed per length")(
      "budgets", po::value(&budgets_s)->default_value(budgets_s),
      "SnapKV budgets whose compressed decode is timed too (empty: none)");
  po::variables_map vm;
  po::store(po::parse_command_line(argc, argv, desc), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  at::set_num_threads(threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency()));
  at::manual_seed(0);
  const auto device = parse_device(device_s);
  const auto cfg = tinyllama_config(layers);
  std::cout << fmt::format("# ripplekv_bench: TinyLlama-1.1B shape ({} layers), threads={}, device={}\n", layers,
                           at::get_num_threads(), device_s);
  std::stringstream ds(dtypes_s);
  std::string dname;
  while (std::getline(ds, dname, ',')) {
    const auto dtype = parse_dtype(dname);
    const double peak = device.is_cpu() ? matmul_peak_gflops(dtype) : 0.0;
    auto weights = bench::random_weights(cfg, dtype);
    if (!device.is_cpu()) {
      auto to = [&](at::Tensor& t) { if (t.defined()) t = t.to(device); };
      to(weights.embed); to(weights.final_norm); to(weights.lm_head);
      for (auto& l : weights.layers) {
        for (auto* t : {&l.attn_norm, &l.ffn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down}) to(*t);
      }
    }
    LlamaModel model(cfg, std::move(weights));
    std::cout << fmt::format("RESULT impl=ripplekv dtype={} matmul_peak_gflops={:.1f}\n", dname, peak);
    for (auto t : parse_list(lengths_s)) {
      auto tokens = at::randint(1, cfg.vocab_size, {1, t}, at::kLong).to(device);
      KVCache cache(cfg.num_layers);
      cache.set_headroom(decode_steps + 1);
      // Warm-up on a short prompt so one-time costs (allocator, kernels) are not timed.
      {
        KVCache warm(cfg.num_layers);
        (void)model.prefill(tokens.narrow(1, 0, std::min<int64_t>(t, 64)), warm).cpu();
      }
      // One prefill serves every budget: each SnapKV session scores tokens through its own
      // hooks during the same prefill, then compresses its own copy of the cache.
      const auto budgets = budgets_s.empty() ? std::vector<int64_t>{} : parse_list(budgets_s);
      HookRegistry hooks;
      std::vector<std::unique_ptr<CompressionMethod>> methods;
      std::vector<std::unique_ptr<CompressionSession>> sessions;
      for (auto b : budgets) {
        methods.push_back(CompressionMethod::create({"snapkv", "uniform", b, {}}, cfg));
        sessions.push_back(methods.back()->begin(hooks, t));
      }
      double t0 = now();
      auto logits = model.prefill(tokens, cache, &hooks);
      auto next = logits.argmax(-1).cpu();
      const double prefill_s = now() - t0;
      auto first = next;
      for (size_t i = 0; i < budgets.size(); ++i) {
        KVCache compressed = cache;  // shares the full buffers until keep() replaces them
        t0 = now();
        auto report = sessions[i]->finish(compressed);
        (void)compressed.keys(0).sum().item<float>();
        const double compress_s = now() - t0;
        auto tok = first;
        t0 = now();
        for (int j = 0; j < decode_steps; ++j) {
          auto lg = model.decode(tok.view({1, 1}).to(device), compressed);
          tok = lg.argmax(-1).cpu();
        }
        const double ms = (now() - t0) / decode_steps * 1e3;
        std::cout << fmt::format(
                         "RESULT impl=ripplekv-snapkv dtype={} tokens={} budget={} decode_ms={:.2f} "
                         "compress_ms={:.1f} compress_pct_of_prefill={:.2f} kv_kept_pct={:.1f}",
                         dname, t, budgets[i], ms, compress_s * 1e3, 100 * compress_s / prefill_s,
                         100.0 * report.kept_bytes / std::max<int64_t>(report.full_bytes, 1))
                  << std::endl;
      }
      t0 = now();
      for (int i = 0; i < decode_steps; ++i) {
        logits = model.decode(next.view({1, 1}).to(device), cache);
        next = logits.argmax(-1).cpu();
      }
      const double decode_ms = (now() - t0) / decode_steps * 1e3;
      const double gflops = prefill_flops(cfg, t) / prefill_s / 1e9;
      std::cout << fmt::format(
                       "RESULT impl=ripplekv dtype={} tokens={} prefill_tok_s={:.1f} prefill_gflops={:.1f} "
                       "pct_of_peak={:.0f} decode_ms={:.2f} peak_rss_mib={:.0f}",
                       dname, t, t / prefill_s, gflops, peak > 0 ? 100 * gflops / peak : 0.0, decode_ms,
                       peak_rss_kib() / 1024.0)
                << std::endl;
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "error: " << e.what() << "\n";
  return 1;
}
