// RippleKV measured on each prompt: the prompt probe (core/ripple/prompt_probe.h) and the
// ripple_prompt allocator that maps it to budgets.
#include "catch_torch.h"

#include <cmath>
#include <numeric>

#include "core/compress/compression.h"
#include "core/compress/observation_share.h"
#include "core/ripple/budget_mapper.h"
#include "core/ripple/prompt_probe.h"
#include "core/ripple/sensitivity_profiler.h"
#include "models/loaders/load_model.h"
#include "test_paths.h"

using namespace ripplekv;

namespace {

// The reference, by another route: the context prefilled on its own, layer `layer`'s cached
// values given the probe's noise, and the window decoded one token at a time against the
// clean and the perturbed cache.
at::Tensor decoded_kl(const CausalLM& model, const at::Tensor& tokens, int64_t w, int64_t layer,
                      const PromptProbeOptions& o, uint64_t draw = 0) {
  const int64_t L = model.num_layers();
  const int64_t ctx = tokens.size(1) - w;
  KVCache clean(L);
  (void)model.prefill(tokens.narrow(1, 0, ctx), clean);
  KVCache noisy(L);
  for (int64_t j = 0; j < L; ++j) {
    auto v = clean.values(j);
    if (j == layer) v = perturb_values(v, o.noise, {noise_seed(o.seed, 0, layer, draw)}, ctx);
    noisy.append(j, clean.keys(j), v, 0);
  }
  std::vector<at::Tensor> a, b;
  for (int64_t i = 0; i < w; ++i) {
    const auto tok = tokens.narrow(1, ctx + i, 1);
    a.push_back(model.decode(tok, clean));
    b.push_back(model.decode(tok, noisy));
  }
  return kl_divergence(at::cat(a, 1), at::cat(b, 1), o.direction).reshape({w}).to(at::kDouble);
}

struct Prefilled {
  KVCache cache;
  at::Tensor window_input;
};

Prefilled prefill(const CausalLM& model, const at::Tensor& tokens, int64_t w) {
  Prefilled p{KVCache(model.num_layers()), {}};
  (void)model.prefill(tokens, p.cache);
  p.window_input = model.embed(tokens.narrow(1, tokens.size(1) - w, w));
  return p;
}

}  // namespace

TEST_CASE("Prompt probe: each layer's KL equals decoding the window against that layer's perturbed cache",
          "[core][ripple]") {
  // In float64 the probe equals the decoded route to rounding (1e-9; the noise itself is drawn
  // in float32 for every dtype, the same for both routes). In float32 each route rounds on its
  // own (BLAS and kernels choose their summation order by CPU), and a small KL between nearly
  // equal distributions keeps few of float32's digits: KL ~ sum p d^2 / 2 moves by about
  // sqrt(2 KL) x the logits' error. These models' float32 logits stay within about 1e-5 of
  // float64 (measured here on an AMX CPU: the probe's KL errors divided by sqrt(KL) were at most
  // 3.6e-6; the HF fixtures' float32 logits at most 1.0e-5 off), so the float32 probe is checked
  // against the float64 one within sqrt(2 KL) x 1e-5, plus 1e-12 for the KL's own rounding.
  struct Case {
    const char* what;
    std::string path;
    NoiseMode mode;
    KlDirection direction;
  };
  for (const auto& c : {Case{"stories260K", test::shared_data("stories260K/stories260K.bin"), NoiseMode::LayerMean,
                             KlDirection::Forward},
                        Case{"GQA fixture", test::fixture("compression/model"), NoiseMode::Relative,
                             KlDirection::Symmetric}}) {
    DYNAMIC_SECTION(c.what) {
      const auto model = load_model(c.path, {});
      const auto model64 = load_model(c.path, {at::kDouble});
      at::manual_seed(11);
      const int64_t n = 70, w = 12;
      const auto tokens = at::randint(3, model->config().vocab_size, {1, n}, at::kLong);
      PromptProbeOptions o;
      o.noise.eps = 0.3;
      o.noise.mode = c.mode;
      o.seed = 5;
      o.direction = c.direction;
      o.draws = 2;  // draw d is measured at columns d w .. d w + w - 1
      auto p = prefill(*model, tokens, w);
      const KVCache before = p.cache.clone();
      const auto kl = probe_prompt_sensitivity(*model, p.cache, p.window_input, o);
      for (int64_t l = 0; l < model->num_layers(); ++l) {  // only read, noise or not
        CHECK(p.cache.length(l) == n);
        CHECK(p.cache.values(l).equal(before.values(l)));
        CHECK(p.cache.keys(l).equal(before.keys(l)));
      }
      auto p64 = prefill(*model64, tokens, w);
      const auto kl64 = probe_prompt_sensitivity(*model64, p64.cache, p64.window_input, o);
      REQUIRE(kl.size(0) == model->num_layers());
      REQUIRE(kl.size(1) == 2 * w);
      REQUIRE(kl64.sizes() == kl.sizes());
      for (int64_t l = 0; l < model->num_layers(); ++l) {
        for (int64_t d = 0; d < 2; ++d) {
          INFO("layer " << l << ", draw " << d);
          const auto ref64 = decoded_kl(*model64, tokens, w, l, o, static_cast<uint64_t>(d));
          CHECK(kl[l].narrow(0, d * w, w).sum().item<double>() > 0);
          for (int64_t i = 0; i < w; ++i) {
            const double truth = kl64[l][d * w + i].item<double>();
            CHECK(truth == Approx(ref64[i].item<double>()).epsilon(1e-9).margin(1e-15));
            CHECK(std::abs(kl[l][d * w + i].item<double>() - truth) <= std::sqrt(2 * truth) * 1e-5 + 1e-12);
          }
        }
        CHECK_FALSE(kl[l].narrow(0, 0, w).equal(kl[l].narrow(0, w, w)));  // two different draws
      }
      // One draw is the first draw of two.
      o.draws = 1;
      const auto one = probe_prompt_sensitivity(*model, p.cache, p.window_input, o);
      REQUIRE(one.size(1) == w);
      CHECK(one.equal(kl.narrow(1, 0, w)));
    }
  }
}

TEST_CASE("Prompt probe: no noise gives exactly zero KL - the cache is only read - bad input is refused",
          "[core][ripple]") {
  const auto model = load_model(test::shared_data("stories260K/stories260K.bin"), {});
  at::manual_seed(12);
  const auto tokens = at::randint(3, model->config().vocab_size, {1, 50}, at::kLong);
  auto p = prefill(*model, tokens, 10);
  const KVCache before = p.cache.clone();
  PromptProbeOptions o;
  o.noise.eps = 0;
  const auto kl = probe_prompt_sensitivity(*model, p.cache, p.window_input, o);
  CHECK(kl.eq(0).all().item<bool>());
  for (int64_t l = 0; l < model->num_layers(); ++l) {
    CHECK(p.cache.length(l) == 50);
    CHECK(p.cache.keys(l).equal(before.keys(l)));
    CHECK(p.cache.values(l).equal(before.values(l)));
  }
  o.draws = 0;
  CHECK_THROWS_WITH(probe_prompt_sensitivity(*model, p.cache, p.window_input, o), Catch::Contains("draws=0"));
  o.draws = 1;
  // A window as long as the prompt leaves no context to perturb.
  CHECK_THROWS_WITH(probe_prompt_sensitivity(*model, p.cache, model->embed(tokens), o),
                    Catch::Contains("prompt longer than 50") && Catch::Contains("kl_positions"));
  // A compressed cache no longer holds the prompt.
  p.cache.keep(2, at::arange(40, at::kLong));
  CHECK_THROWS_WITH(probe_prompt_sensitivity(*model, p.cache, p.window_input, o),
                    Catch::Contains("layer 2") && Catch::Contains("before compressing"));
}

TEST_CASE("ripple_prompt: budgets map the probe's mean KL - both budgets of one prefill share it or run alone",
          "[core][ripple]") {
  const auto model = load_model(test::shared_data("stories260K/stories260K.bin"), {});
  const int64_t L = model->num_layers();
  at::manual_seed(13);
  const int64_t n = 90;
  const auto tokens = at::randint(3, model->config().vocab_size, {1, n}, at::kLong);
  const std::map<std::string, std::string> opts{
      {"window", "8"}, {"kl_positions", "16"}, {"ratio", "4"}, {"eps", "0.2"}, {"draws", "3"}};

  // The expected budgets, from the probe called directly: the mean over draws and positions.
  auto p = prefill(*model, tokens, 16);
  PromptProbeOptions po;
  po.noise.eps = 0.2;
  po.draws = 3;
  const auto kl = probe_prompt_sensitivity(*model, p.cache, p.window_input, po).mean(1);
  const std::vector<double> scores(kl.data_ptr<double>(), kl.data_ptr<double>() + L);
  BudgetMapperOptions mo;
  mo.ratio = 4;

  const std::vector<int64_t> budgets{24, 40};
  std::vector<std::unique_ptr<CompressionMethod>> methods;
  for (auto b : budgets) methods.push_back(CompressionMethod::create({"snapkv", "ripple_prompt", b, opts}, model->config()));
  // Both budgets on one prefill, sharing observations...
  ObservationShare share;
  HookRegistry hooks;
  std::vector<std::unique_ptr<CompressionSession>> sessions;
  for (const auto& m : methods) sessions.push_back(m->begin(hooks, n, &share));
  KVCache full(L);
  (void)model->prefill(tokens, full, &hooks);
  CHECK(share.size() == 2);  // one entry of selector scores, one of probe statistics, for both budgets
  for (std::size_t i = 0; i < budgets.size(); ++i) {
    INFO("budget " << budgets[i]);
    KVCache cache = full.clone();
    const auto shared = sessions[i]->finish(cache, *model);
    // ...and each alone.
    auto alone = methods[i]->begin(n);
    KVCache own(L);
    (void)model->prefill(tokens, own, alone->hooks());
    const auto report = alone->finish(own, *model);
    const auto expected = map_budgets(scores, budgets[i], 8, n, mo);
    CHECK(report.kept == expected);
    CHECK(shared.kept == expected);
    CHECK(std::accumulate(report.kept.begin(), report.kept.end(), int64_t{0}) == L * budgets[i]);
    CHECK(*std::max_element(expected.begin(), expected.end()) > *std::min_element(expected.begin(), expected.end()));
  }
  // r = 1 is the uniform allocation.
  auto flat = CompressionMethod::create({"snapkv", "ripple_prompt", 24, {{"window", "8"}, {"ratio", "1"}}}, model->config());
  auto s = flat->begin(n);
  KVCache c(L);
  (void)model->prefill(tokens, c, s->hooks());
  CHECK(s->finish(c, *model).kept == std::vector<int64_t>(static_cast<std::size_t>(L), 24));
  // A prompt shorter than the replayed window is refused with the option to change.
  auto small = CompressionMethod::create({"snapkv", "ripple_prompt", 10, {{"window", "8"}, {"kl_positions", "16"}}},
                                        model->config());
  CHECK_THROWS_WITH(small->begin(12), Catch::Contains("kl_positions"));
  CHECK_THROWS_WITH(small->begin(16), Catch::Contains("kl_positions"));  // nothing left to perturb
  // Options are checked when the method is made.
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "ripple_prompt", 24, {{"eps", "0"}}}, model->config()),
                    Catch::Contains("eps=0"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "ripple_prompt", 24, {{"draws", "0"}}}, model->config()),
                    Catch::Contains("draws=0"));
}
