// Benchmark (not a test): prefill tokens/s and % of the measured matrix-multiply peak,
// decode ms/token and % of the memory bound (weights + KV cache read once per token, at the
// read bandwidth this program measures), and the step time of a batch of V variants'
// compressed caches (left-padded rows, as the evaluation engine decodes them), for a model of
// a real model's shape with random weights. Prints "RESULT key=value ..." lines that
// scripts/bench.sh joins with HF transformers' (scripts/bench/bench_hf.py).
//
//   build/ripplekv_bench --shape smollm2 --lengths 2048,8192 --dtypes float32,bfloat16 --threads 2
//   build/ripplekv_bench --shape qwen2.5-1.5b --device cuda      (MFU and % of HBM bandwidth)
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "core/compress/compression.h"
#include "models/generation/generate.h"
#include "models/llama/llama_model.h"
#include "models/loaders/load_model.h"
#include "models/ops/cudnn_attention.h"
#include "models/ops/greedy_argmax.h"
#include "models/ops/linear.h"
#include "bench_cli.h"
#include "op_profile.h"
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

// FLOPs of a causal prefill of T tokens (multiply-adds x 2): projections, MLP, head on the
// last token, and attention scores + weighted sum over the causal half.
double prefill_flops(const ModelConfig& c, int64_t t) {
  const double h = c.hidden_size, qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  const double per_token_layer = 2 * (h * qd + 2 * h * kvd + qd * h + 3 * h * c.intermediate_size);
  const double attn_layer = 2.0 * 2.0 * c.num_heads * c.head_dim * (static_cast<double>(t) * (t + 1) / 2);
  return c.num_layers * (per_token_layer * t + attn_layer) + 2.0 * h * c.vocab_size;
}

// Waits for the device's queued work (a value read back).
void sync(const at::Tensor& t) { (void)t.sum().item<double>(); }

struct MatmulPeak {
  double gflops = 0;
  bool widened = false;  // measured in float32: ops::linear widens bfloat16 on this CPU
};

// The peak of the product a prompt's projections run: at::linear, in float32 where ops::linear
// widens bfloat16 (x86-64 without AVX-512; else a bfloat16 prefill would read as several times
// ATen's bfloat16 peak), of squares of side up to 2,048 on a CPU (8,192 on a GPU), smaller where
// one product takes over 50 ms (ATen's bfloat16 product on such a CPU runs at a few GFLOP/s).
MatmulPeak matmul_peak_gflops(at::ScalarType dtype, at::Device device) {
  const int64_t max_n = device.is_cpu() ? 2048 : 8192;
  int64_t n = device.is_cpu() ? 256 : max_n;
  at::Tensor a, b;
  bool widened = false;
  for (;; n *= 2) {
    a = at::randn({n, n}).to(device, dtype), b = at::randn({n, n}).to(device, dtype);
    widened = device.is_cpu() && ops::linear_uses_upcast(a, b);
    if (widened) a = a.to(at::kFloat), b = b.to(at::kFloat);
    sync(at::linear(a, b));  // warm-up
    const double t0 = now();
    sync(at::linear(a, b));
    if (n >= max_n || now() - t0 > 0.05) break;
  }
  const int reps = 5;
  double best = 1e30;  // the best of 3 rounds: a peak, not an average over the VM's noise
  for (int round = 0; round < 3; ++round) {
    at::Tensor c;
    const double t0 = now();
    for (int i = 0; i < reps; ++i) c = at::linear(a, b);
    sync(c);
    best = std::min(best, now() - t0);
  }
  return {2.0 * n * n * n * reps / best / 1e9, widened};
}

// Read bandwidth in GB/s: the best of 5 sums over a 512 MiB float32 tensor.
double read_bandwidth_gbs(at::Device device) {
  auto x = at::ones({int64_t{128} * 1024 * 1024}, at::TensorOptions().dtype(at::kFloat).device(device));
  double best = 1e30;
  for (int i = 0; i < 6; ++i) {
    const double t0 = now();
    (void)x.sum().item<float>();
    if (i > 0) best = std::min(best, now() - t0);
  }
  return static_cast<double>(x.nbytes()) / best / 1e9;
}

// One-sequence caches of `mean` tokens per layer on average (uniform in [mean/2, 3 mean/2]),
// all ending at position `next`, as different compression methods leave one prompt.
std::vector<KVCache> random_variant_caches(const ModelConfig& c, int64_t rows, int64_t mean, int64_t next,
                                           at::ScalarType dtype, at::Device device, std::mt19937& rng) {
  std::vector<KVCache> out;
  std::uniform_int_distribution<int64_t> len(std::max<int64_t>(1, mean / 2), std::max<int64_t>(1, mean * 3 / 2));
  for (int64_t r = 0; r < rows; ++r) {
    KVCache cache(c.num_layers);
    cache.set_headroom(64);
    for (int64_t l = 0; l < c.num_layers; ++l) {
      const int64_t n = std::min(len(rng), next);
      auto k = at::randn({1, c.num_kv_heads, n, c.head_dim}, at::TensorOptions().dtype(dtype).device(device));
      cache.append(l, k, k, next - n);
    }
    out.push_back(std::move(cache));
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  std::string shape_s = "tinyllama", lengths_s = "2048,8192", dtypes_s = "float32,bfloat16", device_s = "cpu",
              budgets_s = "128,512", variants_s = "1,4,16,25";
  int threads = 0, decode_steps = 16, prefill_repeats = 3;
  bool op_profile = false, cudnn_everywhere = false;
  int64_t layers = 0, variant_budget = 256;
  po::options_description desc("ripplekv_bench options");
  desc.add_options()("help,h", "help")("shape", po::value(&shape_s)->default_value(shape_s),
                                       "model shape: tinyllama, smollm2, qwen2.5-1.5b")(
      "lengths", po::value(&lengths_s)->default_value(lengths_s), "prompt lengths")(
      "dtypes", po::value(&dtypes_s)->default_value(dtypes_s), "float32,bfloat16,float16")(
      "device", po::value(&device_s)->default_value(device_s), "cpu | cuda")(
      "layers", po::value(&layers)->default_value(0), "layers (0 = the shape's own)")(
      "decode-steps", po::value(&decode_steps)->default_value(16), "decode steps timed per length")(
      "prefill-repeats", po::value(&prefill_repeats)->default_value(3),
      "prefills timed per length; the fastest is reported (the first touches fresh memory)")(
      "budgets", po::value(&budgets_s)->default_value(budgets_s),
      "SnapKV budgets whose compressed decode is timed too (empty: none)")(
      "variants", po::value(&variants_s)->default_value(variants_s),
      "batch sizes V of the batched-variant decode step (empty: none)")(
      "variant-budget", po::value(&variant_budget)->default_value(variant_budget),
      "mean cached tokens per layer of each variant's row")(
      "op-profile", po::bool_switch(&op_profile),
      "after each batched-variant step (V = 1, 4, ...), print where one decode step's time goes, ATen op by op")(
      "cudnn-attention-everywhere", po::bool_switch(&cudnn_everywhere),
      "CUDA: let ATen pick cuDNN attention for decode and masked attention too (its own default; "
      "one graph build per K/V shape), to measure what ripplekv's default avoids");
  bench::add_threads_option(desc, threads);
  if (!bench::parse_args(desc, argc, argv)) return 0;
  ops::set_cudnn_attention_everywhere(cudnn_everywhere);
  bench::set_threads(threads);
  at::manual_seed(0);
  const auto device = parse_device(device_s);
  const auto& shape = bench::find_shape(shape_s);
  const auto cfg = bench::shape_config(shape, layers);
  const double bandwidth = read_bandwidth_gbs(device);
  std::cout << fmt::format("# ripplekv_bench: {} shape ({} layers), threads={}, device={}, read bandwidth {:.1f} GB/s{}\n",
                           shape.model, cfg.num_layers, at::get_num_threads(), device_s, bandwidth,
                           device.is_cuda() ? (cudnn_everywhere ? ", cuDNN attention everywhere"
                                                                : ", cuDNN attention for the causal prefill only")
                                            : "");
  std::stringstream ds(dtypes_s);
  std::string dname;
  while (std::getline(ds, dname, ',')) {
    const auto dtype = parse_dtype(dname);
    const auto [peak, widened] = matmul_peak_gflops(dtype, device);
    auto weights = bench::random_weights(cfg, dtype);
    if (!device.is_cpu()) {
      auto to = [&](at::Tensor& t) { if (t.defined()) t = t.to(device); };
      const bool tied = weights.lm_head.is_same(weights.embed);
      to(weights.embed); to(weights.final_norm);
      if (tied) weights.lm_head = weights.embed; else to(weights.lm_head);
      for (auto& l : weights.layers) {
        for (auto* t : {&l.attn_norm, &l.ffn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.w_gate, &l.w_up, &l.w_down,
                        &l.bq, &l.bk, &l.bv}) to(*t);
      }
    }
    LlamaModel model(cfg, std::move(weights));
    const double weight_bytes = decode_cost_model(model).weight_bytes;
    const int64_t elem = at::elementSize(dtype);
    const double kv_bytes_per_token = 2.0 * cfg.num_layers * cfg.num_kv_heads * cfg.head_dim * elem;
    std::cout << fmt::format("RESULT impl=ripplekv shape={} dtype={} matmul_peak_gflops={:.1f}{} read_gbs={:.1f} "
                             "weight_mib={:.0f}\n",
                             shape.name, dname, peak, widened ? " matmul_peak_dtype=float32" : "", bandwidth,
                             weight_bytes / (1 << 20));
    for (auto t : parse_list(lengths_s)) {
      if (t + decode_steps + 1 > cfg.max_position_embeddings) {
        throw std::invalid_argument(fmt::format("--lengths {} exceeds the {} shape's context", t, shape.name));
      }
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
      // The fastest of --prefill-repeats plain prefills (the last one fills `cache` when no
      // budget needs the observers); the same protocol as bench_hf.py.
      double prefill_s = 0;
      at::Tensor logits;
      for (int r = 0; r < std::max(1, prefill_repeats); ++r) {
        const bool last = r + 1 >= std::max(1, prefill_repeats) && budgets.empty();
        KVCache scratch(cfg.num_layers);
        const double t0 = now();
        logits = model.prefill(tokens, last ? cache : scratch);
        (void)logits.argmax(-1).cpu();
        const double s = now() - t0;
        prefill_s = r == 0 ? s : std::min(prefill_s, s);
      }
      double hooked_s = prefill_s;  // the compression figures' denominator
      if (!budgets.empty()) {
        const double t0 = now();
        logits = model.prefill(tokens, cache, &hooks);
        (void)logits.argmax(-1).cpu();
        hooked_s = now() - t0;
      }
      auto next = logits.argmax(-1).cpu();
      auto first = next;
      for (size_t i = 0; i < budgets.size(); ++i) {
        KVCache compressed = cache.clone();
        double t0 = now();
        auto report = sessions[i]->finish(compressed, model);
        (void)compressed.keys(0).sum().item<float>();
        const double compress_s = now() - t0;
        auto tok = first;
        t0 = now();
        for (int j = 0; j < decode_steps; ++j) {
          auto lg = model.decode(tok.view({1, 1}).to(device), compressed);
          tok = ops::greedy_argmax(lg).cpu();
        }
        const double ms = (now() - t0) / decode_steps * 1e3;
        std::cout << fmt::format(
                         "RESULT impl=ripplekv-snapkv shape={} dtype={} tokens={} budget={} decode_ms={:.2f} "
                         "compress_ms={:.1f} compress_pct_of_prefill={:.2f} kv_kept_pct={:.1f}",
                         shape.name, dname, t, budgets[i], ms, compress_s * 1e3, 100 * compress_s / hooked_s,
                         100.0 * report.kept_bytes / std::max<int64_t>(report.full_bytes, 1))
                  << std::endl;
      }
      const double t0 = now();
      for (int i = 0; i < decode_steps; ++i) {
        logits = model.decode(next.view({1, 1}).to(device), cache);
        next = ops::greedy_argmax(logits).cpu();
      }
      const double decode_ms = (now() - t0) / decode_steps * 1e3;
      const double bound_ms = (weight_bytes + kv_bytes_per_token * (t + decode_steps / 2)) / bandwidth / 1e6;
      const double gflops = prefill_flops(cfg, t) / prefill_s / 1e9;
      std::cout << fmt::format(
                       "RESULT impl=ripplekv shape={} dtype={} tokens={} prefill_tok_s={:.1f} prefill_gflops={:.1f} "
                       "pct_of_peak={:.0f} decode_ms={:.2f} decode_bound_ms={:.2f} pct_of_bound={:.0f} "
                       "peak_rss_mib={:.0f}",
                       shape.name, dname, t, t / prefill_s, gflops, peak > 0 ? 100 * gflops / peak : 0.0, decode_ms,
                       bound_ms, 100 * bound_ms / decode_ms, peak_rss_kib() / 1024.0)
                << std::endl;
    }
    // Batched-variant decode: V rows of different cached lengths (the engine's variants of one
    // prompt), one step for all of them, against one row alone. The batch sizes take turns step
    // by step, so that a drift of this machine's speed (a VM's can move by 2x within minutes)
    // reaches every V alike instead of the ratio to one row.
    struct Batch {
      int64_t v;
      KVCache cache;
      at::Tensor tok;
      std::vector<double> times;
    };
    std::mt19937 rng(5);
    std::vector<Batch> batches;
    for (auto v : variants_s.empty() ? std::vector<int64_t>{} : parse_list(variants_s)) {
      auto rows = random_variant_caches(cfg, v, variant_budget, 4 * variant_budget, dtype, device, rng);
      std::vector<const KVCache*> ptrs;
      for (const auto& r : rows) ptrs.push_back(&r);
      KVCache cache = v == 1 ? std::move(rows[0]) : KVCache::stack(ptrs);
      batches.push_back({v, std::move(cache), at::randint(1, cfg.vocab_size, {v, 1}, at::kLong).to(device), {}});
    }
    // One greedy step of every row of a batch; its wall time in seconds.
    auto step = [&](Batch& b) {
      const double t0 = now();
      b.tok = ops::greedy_argmax(model.decode(b.tok, b.cache)).view({b.v, 1}).cpu().to(device);
      return now() - t0;
    };
    const int steps = std::max(4, decode_steps / 2);
    for (auto& b : batches) (void)step(b);  // warm-up
    for (int i = 0; i < steps; ++i) {
      for (auto& b : batches) b.times.push_back(step(b));
    }
    auto median_ms = [](std::vector<double> times) {
      std::sort(times.begin(), times.end());
      return times[times.size() / 2] * 1e3;
    };
    double one_ms = 0;
    for (const auto& b : batches) {
      if (b.v == 1) one_ms = median_ms(b.times);
    }
    for (auto& b : batches) {
      const double ms = median_ms(b.times);
      if (op_profile) {
        double total = 0;
        {
          bench::OpProfile profile;
          for (int i = 0; i < steps; ++i) total += step(b);
        }
        bench::OpProfile::print(total * 1e3 / steps, steps, b.v, std::cout);
      }
      std::cout << fmt::format("RESULT impl=ripplekv-batch shape={} dtype={} rows={} budget={} step_ms={:.2f} "
                               "x_one_row={:.2f}",
                               shape.name, dname, b.v, variant_budget, ms, one_ms > 0 ? ms / one_ms : 0.0)
                << std::endl;
    }
  }
  return 0;
} catch (const std::exception& e) {
  std::cerr << "error: " << e.what() << "\n";
  return 1;
}
