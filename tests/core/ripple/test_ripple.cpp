// RippleKV: perturbation engine, KL sensitivity profiler, exponential budget mapper.
#include "catch_torch.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <fstream>
#include <numeric>
#include <random>

#include <nlohmann/json.hpp>

#include "core/compress/budget_math.h"
#include "core/compress/compression.h"
#include "core/compress/registry.h"
#include "core/ripple/budget_mapper.h"
#include "core/ripple/calibration.h"
#include "core/ripple/profile_runner.h"
#include "core/ripple/ripple_options.h"
#include "core/ripple/sensitivity_profile.h"
#include "core/ripple/sensitivity_profiler.h"
#include "models/loaders/load_model.h"
#include "models/loaders/opened_model.h"
#include "test_paths.h"
#include "test_support.h"

using namespace ripplekv;
namespace fs = std::filesystem;

namespace {

std::vector<std::vector<int64_t>> random_samples(int n, int64_t len, int64_t vocab, int seed) {
  std::mt19937 rng(seed);
  std::vector<std::vector<int64_t>> out;
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> s{1};
    for (int64_t t = 1; t < len + i * 7; ++t) s.push_back(3 + static_cast<int64_t>(rng() % (vocab - 3)));
    out.push_back(s);
  }
  return out;
}

std::unique_ptr<LlamaModel> tiny_model() { return load_hf_model(test::fixture("compression/model"), {}); }

// The same model with layer `dead`'s attention output projection zeroed.
std::unique_ptr<LlamaModel> with_dead_attention(const LlamaModel& m, int64_t dead) {
  ModelWeights w = m.weights();
  w.layers[static_cast<size_t>(dead)].wo = at::zeros_like(w.layers[static_cast<size_t>(dead)].wo);
  return std::make_unique<LlamaModel>(m.config(), w);
}

// The tokens each layer keeps after a SnapKV + ripple method (profile, ratio 8, window 8, average
// 48 per layer, plus `extra` options) compresses a random 100-token prompt on `model`.
std::vector<int64_t> ripple_kept(const LlamaModel& model, const std::string& profile,
                                 std::map<std::string, std::string> extra = {}) {
  extra.insert({{"profile", profile}, {"ratio", "8"}, {"window", "8"}});
  auto method = CompressionMethod::create({"snapkv", "ripple", 48, extra}, model.config(), model.identity());
  KVCache cache(model.config().num_layers);
  HookRegistry hooks;
  auto session = method->begin(hooks, 100);
  at::manual_seed(0);
  model.prefill(at::randint(3, 256, {1, 100}, at::kLong), cache, &hooks);
  return session->finish(cache, model).kept;
}

// A path in this process's scratch folder, made once (a second scratch_dir call would empty it
// under a test's earlier files) and removed when the process exits.
std::string temp_path(const std::string& name) {
  static const fs::path dir = test::scratch_dir("ripple", "files");
  return (dir / name).string();
}

}  // namespace

TEST_CASE("Perturbation: eps = 0 is bit-identical - noise scales with the value norm", "[core][ripple]") {
  at::manual_seed(1);
  auto v = at::randn({2, 2, 10, 16});
  NoiseSpec spec;
  spec.mode = NoiseMode::Relative;  // per-token scale: each vector's change is ~eps of its norm
  spec.eps = 0;
  CHECK(perturb_values(v, spec, {1, 2}, 10).is_same(v));
  spec.eps = 0.1;
  auto p = perturb_values(v, spec, {1, 2}, 10);
  auto rel = ((p - v).norm(2, -1) / v.norm(2, -1)).mean().item<double>();
  CHECK(rel == Approx(0.1).epsilon(0.25));  // E||z|| ~ sqrt(D): relative change ~ eps
  // Same seeds, same noise; different seeds, different noise.
  CHECK(at::equal(p, perturb_values(v, spec, {1, 2}, 10)));
  CHECK_FALSE(at::equal(p, perturb_values(v, spec, {3, 2}, 10)));
  // Only the first perturb_len tokens change.
  auto q = perturb_values(v, spec, {1, 2}, 6);
  CHECK(at::equal(q.narrow(2, 6, 4), v.narrow(2, 6, 4)));
  CHECK_FALSE(at::equal(q.narrow(2, 0, 6), v.narrow(2, 0, 6)));
  spec.mode = NoiseMode::Multiplicative;
  CHECK_FALSE(at::equal(perturb_values(v, spec, {1, 2}, 10), v));
  spec.eps = -1;
  CHECK_THROWS_WITH(perturb_values(v, spec, {1, 2}, 10), Catch::Contains("eps=-1"));
}

TEST_CASE("Profiler: a layer whose attention output is zero is insensitive - the others are not",
          "[core][ripple]") {
  auto base = tiny_model();
  auto model = with_dead_attention(*base, 2);
  ProfilerOptions o;
  o.noise.eps = 0.5;
  o.kl_positions = 8;
  auto res = profile_sensitivity(*model, random_samples(3, 40, 256, 5), o);
  REQUIRE(res.layers.size() == 4);
  CHECK(res.layers[2].mean == 0.0);
  CHECK(res.layers[2].same_top_rate == 1.0);
  for (int l : {0, 1, 3}) {
    INFO("layer " << l << " mean KL " << res.layers[l].mean);
    CHECK(res.layers[l].mean > 1e-6);
  }
}

TEST_CASE("Profiler: eps = 0 gives KL 0 - seeds reproduce - suffix recomputation equals the naive re-forward",
          "[core][ripple]") {
  auto model = tiny_model();
  const auto samples = random_samples(2, 30, 256, 9);
  ProfilerOptions o;
  o.kl_positions = 6;
  o.draws = 3;
  o.noise.eps = 0;
  for (const auto& l : profile_sensitivity(*model, samples, o).layers) {
    CHECK(l.mean == 0.0);
    CHECK(l.max == 0.0);
  }
  o.noise.eps = 0.2;
  const auto a = profile_sensitivity(*model, samples, o);
  const auto b = profile_sensitivity(*model, samples, o);
  o.suffix_recompute = false;
  const auto naive = profile_sensitivity(*model, samples, o);
  o.suffix_recompute = true;
  o.max_batch = 1;  // draws one at a time: same seeds, same numbers
  const auto unbatched = profile_sensitivity(*model, samples, o);
  o.seed = 77;
  const auto other_seed = profile_sensitivity(*model, samples, o);
  for (size_t l = 0; l < a.layers.size(); ++l) {
    INFO("layer " << l);
    CHECK(a.layers[l].mean == b.layers[l].mean);
    CHECK(a.layers[l].per_sample == b.layers[l].per_sample);
    CHECK(a.layers[l].mean == naive.layers[l].mean);  // same shapes, same inputs: bit-identical
    CHECK(a.layers[l].max == naive.layers[l].max);
    CHECK(a.layers[l].same_top_rate == naive.layers[l].same_top_rate);
    // Another batch size changes GEMM blocking, hence float32 rounding (~1e-7 relative).
    CHECK(a.layers[l].mean == Approx(unbatched.layers[l].mean).epsilon(1e-5));
    CHECK(a.layers[l].mean != other_seed.layers[l].mean);
    CHECK(a.layers[l].mean > 0);
  }
}

TEST_CASE("Budget mapper: exact totals, bounds, r = 1 uniform, monotone, ratio widens the spread",
          "[core][ripple][mapper]") {
  std::mt19937 rng(123);
  for (int trial = 0; trial < 300; ++trial) {
    const int L = 2 + static_cast<int>(rng() % 40);
    std::vector<double> s(L);
    for (auto& x : s) x = std::exp(std::normal_distribution<double>(-5, 2)(rng));
    const int64_t window = rng() % 40, budget = window + 1 + rng() % 600, prompt = budget + 1 + rng() % 5000;
    double prev_spread = 0;
    for (double r : {1.0, 1.5, 2.0, 4.0, 8.0, 16.0, 64.0}) {
      BudgetMapperOptions o;
      o.ratio = r;
      o.normalization = trial % 2 ? ScoreNormalization::Rank : ScoreNormalization::MinMax;
      auto b = map_budgets(s, budget, window, prompt, o);
      REQUIRE(std::accumulate(b.begin(), b.end(), int64_t{0}) == L * budget);
      for (auto x : b) REQUIRE((x >= window && x <= prompt));
      if (r == 1.0) {
        for (auto x : b) CHECK(x == budget);
      }
      // Before clamping: apportioned budgets are monotone in the score.
      const auto m = exponential_multipliers(s, o);
      auto raw = apportion_largest_remainder(m, L * budget);
      for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j)
          if (s[i] < s[j]) REQUIRE(raw[i] <= raw[j]);
      // The max/min multiplier is exactly r (before clamping) ...
      const auto [lo, hi] = std::minmax_element(m.begin(), m.end());
      if (s != std::vector<double>(L, s[0])) CHECK(*hi / *lo == Approx(r));
      // ... and a larger r never makes the max/min allocation ratio smaller: exactly for the
      // real-valued allocation, and within one token of rounding for the integer one.
      const auto real = water_fill(m, static_cast<double>(L * budget), window, prompt);
      const auto [rlo, rhi] = std::minmax_element(real.begin(), real.end());
      const double spread = *rhi / *rlo;
      CHECK(spread >= prev_spread * (1 - 1e-9));
      prev_spread = spread;
      const auto [blo, bhi] = std::minmax_element(b.begin(), b.end());
      CHECK(static_cast<double>(*bhi + 1) / static_cast<double>(std::max<int64_t>(*blo - 1, 1)) >= spread * (1 - 1e-9));
      // Budgets follow the scores' order (before and after clamping).
      for (int i = 0; i < L; ++i)
        for (int j = 0; j < L; ++j)
          if (s[i] < s[j]) CHECK(b[i] <= b[j] + 1);
    }
  }
}

TEST_CASE("RippleKV: bad input is a clear error", "[core][ripple][bad-input]") {
  using Catch::Contains;
  // r < 1, budget below the selector's minimum.
  CHECK_THROWS_WITH(map_budgets({1, 2, 3}, 64, 8, 1000, {0.5, ScoreNormalization::MinMax}), Contains("ratio=0.5"));
  CHECK_THROWS_WITH(map_budgets({1, 2, 3}, 16, 32, 1000, {4, ScoreNormalization::MinMax}), Contains("below the 32"));
  CHECK_THROWS_WITH(map_budgets({1, NAN, 3}, 64, 8, 1000, {4, ScoreNormalization::MinMax}), Contains("finite"));
  // Empty calibration file.
  const auto empty = temp_path("empty.txt");
  { std::ofstream(empty) << "\n\n  \n"; }
  CHECK_THROWS_WITH(read_calibration(empty), Contains("no non-empty text"));
  CHECK_THROWS_WITH(read_calibration(temp_path("missing.txt")), Contains("cannot open"));
  // eps < 0.
  auto model = tiny_model();
  ProfilerOptions o;
  o.noise.eps = -0.1;
  CHECK_THROWS_WITH(profile_sensitivity(*model, random_samples(1, 20, 256, 1), o), Contains("--eps -0.1"));
  // A profile from another model: layer count and weights fingerprint.
  SensitivityProfile p;
  p.num_layers = 4;
  p.weights_fingerprint = "other";
  p.layers.resize(4);
  const auto path = temp_path("profile.json");
  write_profile_json(p, path);
  CHECK_THROWS_WITH(check_profile_matches(read_profile_json(path), path, 5, {}), Contains("has 4 layers but the model has 5"));
  CHECK_THROWS_WITH(
      CompressionMethod::create({"snapkv", "ripple", 64, {{"profile", path}}}, model->config(), model->identity()),
      Contains("older ripplekv"));
  p.weights_fingerprint = model->fingerprint();
  write_profile_json(p, path);
  CHECK_NOTHROW(
      CompressionMethod::create({"snapkv", "ripple", 64, {{"profile", path}}}, model->config(), model->identity()));
  CHECK_THROWS_WITH(
      CompressionMethod::create({"snapkv", "ripple", 64, {{"profile", path}, {"ratio", "0.5"}}}, model->config()),
      Contains("ratio=0.5"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "ripple", 64, {}}, model->config()), Contains("profile=PATH"));
  { std::ofstream(path) << "{\"format\": \"something else\"}"; }
  CHECK_THROWS_WITH(read_profile_json(path), Contains("ripplekv-sensitivity-profile"));
  fs::remove(path);
  fs::remove(empty);
}

TEST_CASE("RippleKV end to end: profile, save, reload, allocate through the registry", "[core][ripple]") {
  auto model = tiny_model();
  auto dead = with_dead_attention(*model, 1);
  Tokenizer tok(test::shared_data("stories260K/tok512.model"));  // any sentencepiece model with ids < 256 mostly
  ProfileRequest req;
  req.calibration_path = test::shared_data("longbench/raw/multi_news.jsonl");
  req.samples = 2;
  req.max_tokens = 64;
  req.profiler.kl_positions = 8;
  req.profiler.noise.eps = 0.3;
  // tok512 ids go up to 511: fold them into this 256-token model's vocabulary.
  auto cal = read_calibration(req.calibration_path);
  CHECK(cal.format == "longbench");
  CHECK(cal.texts.size() == 200);
  std::vector<std::vector<int64_t>> samples;
  for (int i = 0; i < 2; ++i) {
    auto ids = tok.encode(cal.texts[i], true);
    ids.resize(64);
    std::vector<int64_t> s;
    for (int id : ids) s.push_back(id % 256);
    samples.push_back(s);
  }
  auto res = profile_sensitivity(*dead, samples, req.profiler);
  SensitivityProfile p;
  p.num_layers = 4;
  p.weights_fingerprint = dead->fingerprint();
  for (const auto& l : res.layers) p.layers.push_back({l.mean, l.stderr_mean, l.p50, l.p90, l.max, l.same_top_rate});
  const auto path = temp_path("e2e.json");
  write_profile_json(p, path);
  auto back = read_profile_json(path);
  REQUIRE(back.layers.size() == 4);
  CHECK(back.layers[1].mean == 0.0);
  CHECK(back.layers[0].mean == Approx(res.layers[0].mean));
  // The insensitive layer gets the fewest tokens, and the total is exact.
  const auto kept = ripple_kept(*dead, path);
  CHECK(std::accumulate(kept.begin(), kept.end(), int64_t{0}) == 4 * 48);
  CHECK(*std::min_element(kept.begin(), kept.end()) == kept[1]);
  fs::remove(path);
}

TEST_CASE("A profile belongs to the stored checkpoint, not to the run's dtype", "[core][ripple][profile]") {
  using Catch::Contains;
  const auto dir = test::fixture("hf/llama_gqa");
  LoadOptions bf16;
  bf16.dtype = at::kBFloat16;
  auto fp32_model = load_hf_model(dir, {});
  auto bf16_model = load_hf_model(dir, bf16);
  // The fingerprint identifies the checkpoint as stored: equal across dtypes, different across checkpoints.
  CHECK(fp32_model->fingerprint().rfind("ckpt1:", 0) == 0);
  CHECK(fp32_model->fingerprint() == bf16_model->fingerprint());
  CHECK(fp32_model->legacy_fingerprint() != bf16_model->legacy_fingerprint());
  auto other = load_model(test::fixture("hf/mistral"), {});
  CHECK(other->fingerprint() != fp32_model->fingerprint());

  const int64_t layers = fp32_model->num_layers();
  SensitivityProfile p;
  p.num_layers = layers;
  p.layers.resize(static_cast<std::size_t>(layers), {1, 0, 1, 1, 1, 1});
  p.weights_fingerprint = fp32_model->identity().fingerprint;
  p.dtype = fp32_model->identity().dtype;
  p.device = fp32_model->identity().device;
  const auto path = temp_path("fp32_profile.json");
  write_profile_json(p, path);
  // float32 profile, bfloat16 run of the same checkpoint: accepted, and said.
  const auto notes = check_profile_matches(read_profile_json(path), path, layers, bf16_model->identity());
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Contains("measured in float32 on cpu, used in bfloat16 on cpu"));
  auto method = CompressionMethod::create({"snapkv", "ripple", 16, {{"profile", path}, {"window", "4"}}},
                                          bf16_model->config(), bf16_model->identity());
  CHECK(method->notes() == notes);
  CHECK(check_profile_matches(read_profile_json(path), path, layers, fp32_model->identity()).empty());
  // Another checkpoint with the same layer count: refused.
  ModelIdentity stranger = other->identity();
  CHECK_THROWS_WITH(check_profile_matches(read_profile_json(path), path, layers, stranger),
                    Contains("another checkpoint") && Contains("ripplekv profile"));
  // A profile from before checkpoint fingerprints: fine at its own dtype, a clear error at another.
  p.weights_fingerprint = fp32_model->legacy_fingerprint();
  write_profile_json(p, path);
  CHECK(check_profile_matches(read_profile_json(path), path, layers, fp32_model->identity()).empty());
  CHECK_THROWS_WITH(check_profile_matches(read_profile_json(path), path, layers, bf16_model->identity()),
                    Contains("older ripplekv") && Contains("--dtype float32") && Contains("ripplekv profile"));
  // The legacy fingerprint is computed only when asked, and the identity can outlive its model.
  const ModelIdentity kept = fp32_model->identity();
  fp32_model.reset();
  CHECK(kept.legacy_fingerprint() == p.weights_fingerprint);
  CHECK(check_profile_matches(read_profile_json(path), path, layers, kept).empty());
  fs::remove(path);
}

TEST_CASE("The on-the-fly profile cache keys on the checkpoint and the profiling dtype", "[core][ripple][profile]") {
  const auto model_path = test::shared_data("stories260K/stories260K.bin");
  Tokenizer tok(test::shared_data("stories260K/tok512.model"));
  const auto cache_dir = temp_path("profile_cache");
  fs::remove_all(cache_dir);
  const CompressionSpec spec{"snapkv", "ripple", 16,
                             {{"calibration", test::shared_data("longbench/raw/multi_news.jsonl")},
                              {"calibration_samples", "1"},
                              {"calibration_max_tokens", "24"},
                              {"kl_positions", "4"},
                              {"profile_cache", cache_dir}}};
  const auto count = [&] {
    return std::distance(fs::directory_iterator(cache_dir), fs::directory_iterator());
  };
  auto fp32_model = load_model(model_path, {});
  const auto a = resolve_ripple_profile(spec, *fp32_model, tok, model_path).options.at("profile");
  CHECK(count() == 1);
  // The same checkpoint and dtype reuse the file (a second load gives an equal fingerprint).
  auto again = load_model(model_path, {});
  CHECK(resolve_ripple_profile(spec, *again, tok, model_path).options.at("profile") == a);
  CHECK(count() == 1);
  {
    // An entry made before the per-text means were saved serves score=mean as it is, and is
    // measured again, in place, for score=text_median, which reads them.
    CHECK(read_profile_json(a).layers[0].per_text.size() == 1);
    auto entry = nlohmann::json::parse(test::read_text(a));
    for (auto& layer : entry["layers"]) layer.erase("per_text");
    test::write_text(a, entry.dump());
    CHECK(resolve_ripple_profile(spec, *again, tok, model_path).options.at("profile") == a);
    CHECK(read_profile_json(a).layers[0].per_text.empty());
    auto median = spec;
    median.options["score"] = "text_median";
    const auto resolved = resolve_ripple_profile(median, *again, tok, model_path);
    CHECK(resolved.options.at("profile") == a);
    CHECK(resolved.options.at("score") == "text_median");
    CHECK(read_profile_json(a).layers[0].per_text.size() == 1);
    CHECK(count() == 1);
  }
  // A bfloat16 run profiles in float32 by default (profile_dtype=float32), on a float32 copy of
  // the checkpoint that it loads only when the cache misses: here it reuses the float32 entry.
  LoadOptions bf16;
  bf16.dtype = at::kBFloat16;
  auto bf16_model = load_model(model_path, bf16);
  int copies = 0;
  const Float32ModelLoader load_float32 = [&] {
    ++copies;
    return load_model(model_path, {});
  };
  CHECK(resolve_ripple_profile(spec, *bf16_model, tok, model_path, load_float32).options.at("profile") == a);
  CHECK(copies == 0);
  CHECK(count() == 1);
  {
    auto fresh = spec;  // a cache miss: measured on the copy, recorded as float32, equal to a float32 run's
    fresh.options["seed"] = "5";
    const auto from_copy = resolve_ripple_profile(fresh, *bf16_model, tok, model_path, load_float32).options.at("profile");
    CHECK(copies == 1);
    const auto on_copy = read_profile_json(from_copy);
    CHECK(on_copy.dtype == "float32");
    fs::remove(from_copy);
    const auto from_float32_run = resolve_ripple_profile(fresh, *fp32_model, tok, model_path).options.at("profile");
    CHECK(from_float32_run == from_copy);
    const auto on_float32_run = read_profile_json(from_float32_run);
    CHECK(on_float32_run.dtype == "float32");
    REQUIRE(on_copy.layers.size() == on_float32_run.layers.size());
    for (size_t l = 0; l < on_copy.layers.size(); ++l) {  // the same measurement, not just the same name
      CHECK(on_copy.layers[l].mean == Approx(on_float32_run.layers[l].mean).epsilon(1e-9));
    }
    fs::remove(from_float32_run);
    // A copy that is not the run's checkpoint (the file changed on disk since) is refused.
    const auto changed = temp_path("stories260K_changed.bin");
    fs::copy_file(model_path, changed, fs::copy_options::overwrite_existing);
    {
      std::fstream f(changed, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(-4, std::ios::end);
      const char bytes[4] = {1, 2, 3, 4};
      f.write(bytes, 4);
    }
    CHECK_THROWS_WITH(resolve_ripple_profile(fresh, *bf16_model, tok, model_path,
                                             [&] { return load_model(changed, {}); }),
                      Catch::Contains("changed since this run loaded it"));
    CHECK_FALSE(fs::exists(from_float32_run));  // nothing cached from the refused copy
    fs::remove(changed);
  }
  // Without a way to load the copy it is an error naming the way out, not a silent bf16 profile.
  CHECK_THROWS_WITH(resolve_ripple_profile(spec, *bf16_model, tok, model_path),
                    Catch::Contains("profile_dtype=run"));
  // profile_dtype=run profiles in the run's dtype: another entry, not a reuse of the float32 one.
  auto in_run_dtype = spec;
  in_run_dtype.options["profile_dtype"] = "run";
  const auto b = resolve_ripple_profile(in_run_dtype, *bf16_model, tok, model_path, load_float32).options.at("profile");
  CHECK(copies == 1);
  CHECK(b != a);
  CHECK(count() == 2);
  CHECK(read_profile_json(b).dtype == "bfloat16");
  CHECK(read_profile_json(a).weights_fingerprint == read_profile_json(b).weights_fingerprint);
  auto float32_run = spec;  // on a float32 model both values are the same entry
  float32_run.options["profile_dtype"] = "run";
  CHECK(resolve_ripple_profile(float32_run, *fp32_model, tok, model_path).options.at("profile") == a);
  float32_run.options["profile_dtype"] = "float16";
  CHECK_THROWS_WITH(resolve_ripple_profile(float32_run, *fp32_model, tok, model_path),
                    Catch::Contains("profile_dtype=float16"));
  // The profiler's ablation settings reach the profiler, are recorded, and key their own entry.
  auto with = [&](const std::string& key, const std::string& value) {
    auto s = spec;
    s.options[key] = value;
    return resolve_ripple_profile(s, *fp32_model, tok, model_path).options.at("profile");
  };
  CHECK(read_profile_json(a).noise_mode == "layer_mean");  // the default noise
  const auto noise = read_profile_json(with("noise", "relative"));
  CHECK(noise.noise_mode == "relative");
  const auto positions = read_profile_json(with("positions", "context"));
  CHECK(positions.positions == "context");
  const auto direction = read_profile_json(with("direction", "reverse"));
  CHECK(direction.kl_direction == "reverse");
  CHECK(read_profile_json(with("seed", "3")).seed == 3);
  CHECK(read_profile_json(with("calibration_skip", "2")).skip == 2);
  CHECK(count() == 7);
  CHECK(with("direction", "forward") == a);  // a default spelled out is the same entry
  CHECK(with("noise", "layer_mean") == a);
  CHECK(count() == 7);
  CHECK_THROWS_WITH(with("direction", "sideways"), Catch::Contains("sideways"));
  CHECK_THROWS_WITH(with("seed", "-1"), Catch::Contains("seed=-1"));

  // The factory with its context profiles by itself (the registry's prepare step): the same
  // cache entry, named in the method's spec; other allocators are left as given.
  const OpenedModel opened(model_path, "", {});
  auto windowed = spec;
  windowed.options["window"] = "8";  // stories260K's budget 16 holds no default 32-token window
  const auto method = CompressionMethod::create(windowed, opened);
  CHECK(method->spec().options.at("profile") == a);
  CHECK(count() == 7);
  // A bfloat16 run's factory finds the float32 entry too (its copy comes from the checkpoint).
  const OpenedModel opened_bf16(model_path, "", bf16);
  CHECK(CompressionMethod::create(windowed, opened_bf16)->spec().options.at("profile") == a);
  CHECK(count() == 7);
  auto missed = windowed;  // a miss: the factory loads the float32 copy from the opened checkpoint
  missed.options["seed"] = "7";
  const auto loaded = read_profile_json(CompressionMethod::create(missed, opened_bf16)->spec().options.at("profile"));
  CHECK(loaded.dtype == "float32");
  CHECK(loaded.device == "cpu");
  CHECK(loaded.seed == 7);
  CHECK(count() == 8);
  const CompressionSpec uniform{"snapkv", "uniform", 16, {{"window", "8"}}};
  CHECK(CompressionMethod::create(uniform, opened)->spec().options == uniform.options);
}

TEST_CASE("Registry: exactly the model-bound allocators have a prepare step", "[core][ripple]") {
  std::size_t bound = 0;
  for (const auto& e : allocator_table()) {
    CHECK(e.info->model_bound == static_cast<bool>(e.prepare));
    bound += e.info->model_bound ? 1 : 0;
  }
  CHECK(bound >= 1);
}

TEST_CASE("Profile --skip: the samples after the first `skip` texts - disjoint calibration sets", "[core][ripple][profile]") {
  const auto model = load_model(test::shared_data("stories260K/stories260K.bin"), {});
  Tokenizer tok(test::shared_data("stories260K/tok512.model"));
  ProfileRequest req;
  req.calibration_path = test::shared_data("longbench/raw/multi_news.jsonl");
  req.samples = 1;
  req.max_tokens = 48;
  req.profiler.kl_positions = 8;
  const auto cal = read_calibration(req.calibration_path);
  auto sample = [&](size_t i) {
    auto ids = tok.encode(cal.texts[i], true);
    ids.resize(48);
    return std::vector<int64_t>(ids.begin(), ids.end());
  };
  req.skip = 3;
  const auto skipped = run_profile(*model, tok, req);
  CHECK(skipped.skip == 3);
  CHECK(skipped.samples == 1);
  const auto expected = profile_sensitivity(*model, {sample(3)}, req.profiler);
  const auto first = profile_sensitivity(*model, {sample(0)}, req.profiler);
  REQUIRE(skipped.layers.size() == expected.layers.size());
  for (size_t l = 0; l < expected.layers.size(); ++l) CHECK(skipped.layers[l].mean == expected.layers[l].mean);
  bool differs = false;
  for (size_t l = 0; l < first.layers.size(); ++l) differs = differs || first.layers[l].mean != expected.layers[l].mean;
  CHECK(differs);
  // Each layer's per-text means are kept (one text here: its mean).
  for (size_t l = 0; l < expected.layers.size(); ++l) {
    CHECK(skipped.layers[l].per_text == std::vector<double>{expected.layers[l].mean});
  }
  // Written and read back.
  const auto path = temp_path("skip.json");
  write_profile_json(skipped, path);
  CHECK(read_profile_json(path).skip == 3);
  CHECK(read_profile_json(path).layers[1].per_text == skipped.layers[1].per_text);
  fs::remove(path);
  req.skip = 200;  // the file holds 200 texts
  CHECK_THROWS_WITH(run_profile(*model, tok, req), Catch::Contains("--skip 200") && Catch::Contains("200 texts"));
  req.skip = -1;
  CHECK_THROWS_WITH(run_profile(*model, tok, req), Catch::Contains("--skip"));
}

TEST_CASE("Per-text means: one per calibration text, saved and read back, and score=text_median is their median",
          "[core][ripple][profile]") {
  using Catch::Contains;
  // The profiler's per-sample means (one per text, over its draws and K positions) average to
  // its mean.
  auto model = tiny_model();
  ProfilerOptions o;
  o.kl_positions = 4;
  o.noise.eps = 0.3;
  o.draws = 2;
  const auto res = profile_sensitivity(*model, random_samples(3, 20, 256, 7), o);
  for (const auto& l : res.layers) {
    REQUIRE(l.per_sample.size() == 3);
    CHECK((l.per_sample[0] + l.per_sample[1] + l.per_sample[2]) / 3 == Approx(l.mean));
  }
  // A profile of 3 texts: the median of 1, 5, 2 is 2 and of 9, 3, 3 is 3, where the means differ.
  SensitivityProfile p;
  p.num_layers = 2;
  p.samples = 3;
  p.layers = {{8.0 / 3, 0, 0, 0, 5, 0, {1, 5, 2}}, {5, 0, 0, 0, 9, 0, {9, 3, 3}}};
  const auto path = temp_path("per_text.json");
  write_profile_json(p, path);
  const auto back = read_profile_json(path);
  CHECK(back.layers[0].per_text == std::vector<double>{1, 5, 2});
  CHECK(back.scores("text_median") == std::vector<double>{2, 3});
  CHECK(back.scores("mean") == std::vector<double>{8.0 / 3, 5});
  CHECK_THROWS_WITH(back.scores("median"), Contains("choose mean, p50, p90, max or text_median"));
  // The ripple allocator ranks by it: layer 0 leads by the mean (4 against 3), layer 1 by the
  // median (3 against 2).
  p.weights_fingerprint = model->fingerprint();
  p.num_layers = model->config().num_layers;
  REQUIRE(p.num_layers >= 3);
  p.layers = {{4, 0, 0, 0, 9, 0, {1, 9, 2}}, {3, 0, 0, 0, 3, 0, {3, 3, 3}}};
  p.layers.resize(static_cast<size_t>(p.num_layers), {1, 0, 0, 0, 1, 0, {1, 1, 1}});
  write_profile_json(p, path);
  const auto by_mean = ripple_kept(*model, path, {{"score", "mean"}});
  const auto by_median = ripple_kept(*model, path, {{"score", "text_median"}});
  CHECK(by_mean[0] > by_mean[1]);
  CHECK(by_median[1] > by_median[0]);
  CHECK(std::accumulate(by_median.begin(), by_median.end(), int64_t{0}) == p.num_layers * 48);
  // Profiles written before the per-text means were saved: a clear error naming the file.
  p.layers.assign(static_cast<size_t>(p.num_layers), {1, 0, 0, 0, 1, 0, {}});
  write_profile_json(p, path);
  CHECK_THROWS_WITH(read_profile_json(path).scores("text_median"), Contains("re-run `ripplekv profile`"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "ripple", 64, {{"profile", path}, {"score", "text_median"}}},
                                              model->config(), model->identity()),
                    Contains(path) && Contains("per-text means"));
  // A count that is not calibration.samples, or a value that is no KL divergence, is refused.
  p.layers.assign(static_cast<size_t>(p.num_layers), {1, 0, 0, 0, 1, 0, {1, 2}});
  write_profile_json(p, path);
  CHECK_THROWS_WITH(read_profile_json(path), Contains("per_text has 2 values but calibration.samples = 3"));
  p.layers.assign(static_cast<size_t>(p.num_layers), {1, 0, 0, 0, 1, 0, {1, -2, 1}});
  write_profile_json(p, path);
  CHECK_THROWS_WITH(read_profile_json(path), Contains("per_text holds -2, not a KL divergence"));
  // Layers with per-text means of unequal counts are refused.
  p.layers.assign(static_cast<size_t>(p.num_layers), {1, 0, 0, 0, 1, 0, {1, 1, 1}});
  p.layers[1].per_text.clear();
  p.samples = 0;  // no count to check against: the layers are checked against each other
  write_profile_json(p, path);
  CHECK_THROWS_WITH(read_profile_json(path), Contains("layers[1].per_text has 0 values but layers[0].per_text 3"));
  // One prompt has no texts to take a median over: ripple_prompt does not offer it.
  int score_specs = 0;
  for (const auto& spec : ripple_prompt_option_specs()) {
    if (spec.name != "score") continue;
    ++score_specs;
    CHECK(std::find(spec.choices.begin(), spec.choices.end(), "p90") != spec.choices.end());
    CHECK(std::find(spec.choices.begin(), spec.choices.end(), "text_median") == spec.choices.end());
  }
  CHECK(score_specs == 1);
  fs::remove(path);
}
