// Compression end to end on a tiny HF model: every selector x allocator keeps exactly its
// budgets, the window, and a decodable cache whose bytes match the kept tokens.
#include "catch_torch.h"

#include <algorithm>
#include <numeric>

#include "core/compress/compression.h"
#include "core/compress/method_presets.h"
#include "core/compress/policy_catalog.h"
#include "core/ripple/sensitivity_profile.h"
#include "models/generation/generate.h"
#include "models/loaders/load_model.h"
#include "test_paths.h"
#include "test_support.h"

using namespace ripplekv;

namespace {

struct Run {
  CompressionReport report;
  KVCache cache;
  at::Tensor next_logits;
};

Run run(const CausalLM& model, const CompressionSpec& spec, int64_t prompt_len) {
  auto method = CompressionMethod::create(spec, model.config());
  at::manual_seed(3);
  auto tokens = at::randint(3, model.config().vocab_size, {1, prompt_len}, at::kLong);
  Run r{{}, KVCache(model.num_layers()), {}};
  HookRegistry hooks;
  auto session = method->begin(hooks, prompt_len);
  auto logits = model.prefill(tokens, r.cache, &hooks);
  r.report = session->finish(r.cache, model);
  r.next_logits = model.decode(logits.argmax(-1).view({1, 1}), r.cache, &hooks);
  return r;
}

// How many hooks a session of `method` registers for an n-token prompt.
size_t manual_hook_count(const CompressionMethod& method, int64_t n) {
  HookRegistry hooks;
  auto session = method.begin(hooks, n);
  return hooks.size();
}

}  // namespace

TEST_CASE("Every selector x allocator keeps exact budgets and a consistent cache", "[core][compress]") {
  auto model = load_model(test::fixture("compression/model"), {});  // 4 layers, GQA 8/2
  const auto& cfg = model->config();
  const int64_t per_token_bytes = cfg.num_kv_heads * cfg.head_dim * 2 * 4;
  for (const auto& sel : selector_names()) {
    for (const auto& alloc : allocator_names()) {
      // Allocators that read a file (a profile, multipliers) have tests of their own.
      if (allocator_is_model_bound(alloc) || allocator_declares(alloc, "file")) continue;
      for (int64_t budget : {24, 40}) {
        for (int64_t t : {60, 97}) {
          DYNAMIC_SECTION(sel << " x " << alloc << " budget " << budget << " prompt " << t) {
            CompressionSpec spec{sel, alloc, budget, {}};
            if (sel == "snapkv" || sel == "h2o" || sel == "cake") spec.options["window"] = "8";
            auto r = run(*model, spec, t);
            CHECK(r.next_logits.isfinite().all().item<bool>());
            if (sel == "full") {
              CHECK_FALSE(r.report.compressed);
              CHECK(r.report.kept_bytes == r.report.full_bytes);
              continue;
            }
            REQUIRE(r.report.compressed);
            const int64_t total = std::accumulate(r.report.kept.begin(), r.report.kept.end(), int64_t{0});
            CHECK(total == cfg.num_layers * budget);
            CHECK(r.report.full_bytes == cfg.num_layers * t * per_token_bytes);
            CHECK(r.report.kept_bytes == total * per_token_bytes);
            for (int64_t l = 0; l < cfg.num_layers; ++l) {
              // After one decode step the layer holds its kept prompt tokens + 1.
              CHECK(r.cache.length(l) == r.report.kept[l] + 1);
              auto pos = r.cache.positions(l);
              CHECK(pos.select(2, -1).eq(t).all().item<bool>());  // decoded token at position t
              CHECK((pos.narrow(2, 1, pos.size(2) - 1) > pos.narrow(2, 0, pos.size(2) - 1)).all().item<bool>());
              if (sel == "snapkv" || sel == "h2o" || sel == "cake") {
                // The observation window (last 8 prompt tokens) is always kept.
                auto tail = pos.narrow(2, pos.size(2) - 9, 8);
                CHECK(at::equal(tail[0][0], at::arange(t - 8, t, at::kLong)));
              }
              if (sel == "streamingllm") {
                CHECK(pos[0][0][0].item<int64_t>() == 0);  // attention sinks
                CHECK(pos[0][0][3].item<int64_t>() == 3);
              }
            }
          }
        }
      }
    }
  }
}

TEST_CASE("A session owns its hooks - greedy_generate with it equals prefill + finish on a shared registry",
          "[core][compress]") {
  auto model = load_model(test::fixture("compression/model"), {});
  for (const auto& spec : {CompressionSpec{"snapkv", "pyramid", 24, {{"window", "8"}}},
                           CompressionSpec{"h2o", "uniform", 24, {{"window", "8"}}},
                           CompressionSpec{"snapkv", "uniform", 200, {{"window", "8"}}}}) {
    DYNAMIC_SECTION(spec.selector << " x " << spec.allocator << " budget " << spec.budget) {
      auto method = CompressionMethod::create(spec, model->config());
      const int64_t n = 60;
      const Run manual = run(*model, spec, n);
      at::manual_seed(3);  // the prompt run() draws
      const auto drawn = at::randint(3, model->config().vocab_size, {1, n}, at::kLong);
      const TokenIds prompt(drawn.data_ptr<int64_t>(), drawn.data_ptr<int64_t>() + n);
      auto session = method->begin(n);
      REQUIRE(session->hooks() != nullptr);
      CHECK(session->hooks()->size() == (spec.budget < n ? manual_hook_count(*method, n) : 0));
      KVCache cache(model->num_layers());
      GenerateOptions go;
      go.max_new_tokens = 2;
      const auto r = greedy_generate(*model, prompt, cache, go, session.get());
      const CompressionReport& report = session->report();
      CHECK(report.compressed == manual.report.compressed);
      CHECK(report.kept == manual.report.kept);
      CHECK(r.tokens.size() == 2);
      // The first generated token is the argmax of the prefill logits, the second the
      // argmax after the compressed cache: what run() computed as next_logits.
      CHECK(r.tokens[1] == manual.next_logits.argmax(-1).item<int64_t>());
      // finish() removed the observers: decode steps are not observed.
      CHECK(session->hooks()->size() == 0);
    }
  }
}

TEST_CASE("A prompt within the budget is not compressed", "[core][compress]") {
  auto model = load_model(test::fixture("hf/llama_gqa"), {});
  auto r = run(*model, {"snapkv", "pyramid", 64, {{"window", "8"}}}, 50);
  CHECK_FALSE(r.report.compressed);
  CHECK(r.cache.length(0) == 51);
}

TEST_CASE("Compression: bad methods and budgets are clear errors", "[core][compress][bad-input]") {
  auto model = load_model(test::fixture("hf/llama_gqa"), {});
  const auto& cfg = model->config();
  using Catch::Contains;
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "uniform", 16, {}}, cfg),
                    Contains("below the 32 tokens per layer") && Contains("raise --budget"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "uniform", 0, {}}, cfg), Contains("must be a positive"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "uniform", -5, {}}, cfg), Contains("must be a positive"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkvv", "uniform", 64, {}}, cfg),
                    Contains("unknown selector \"snapkvv\"") && Contains("snapkv, streamingllm"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "pyramidd", 64, {}}, cfg),
                    Contains("unknown allocator") && Contains("pyramid"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "uniform", 64, {{"widow", "8"}}}, cfg),
                    Contains("unknown option(s) widow") && Contains("window"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "uniform", 64, {{"kernel", "4"}}}, cfg),
                    Contains("kernel=4"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "uniform", 64, {{"pooling", "median"}}}, cfg),
                    Contains("one of max, avg, none"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "uniform", 64, {{"window", "x"}}}, cfg),
                    Contains("not an integer"));
  CHECK_THROWS_WITH(CompressionMethod::create({"snapkv", "profile", 64, {}}, cfg), Contains("file=PATH"));
  auto method = CompressionMethod::create({"snapkv", "uniform", 40, {}}, cfg);
  HookRegistry hooks;
  CHECK_THROWS_WITH(method->begin(hooks, 20), Contains("fewer than the observation window"));
}

TEST_CASE("a method records every option in force: given values and the defaults of the rest", "[core][compress]") {
  auto model = load_model(test::fixture("hf/llama_gqa"), {});
  const auto method = CompressionMethod::create({"snapkv", "pyramid", 64, {{"window", "8"}}}, model->config());
  const auto& in_force = method->options_in_force();
  CHECK(in_force.at("window") == "8");   // given
  CHECK(in_force.at("kernel") == "7");   // SnapKV's default
  CHECK(in_force.at("beta") == "20");    // PyramidKV's default
  CHECK(in_force.size() >= 5);
  CHECK(method->describe().find("beta=20") != std::string::npos);
}

TEST_CASE("SnapKV per query head (gqa=none) keeps each query head's own tokens", "[core][compress]") {
  auto model = load_model(test::fixture("compression/model"), {});
  const auto& cfg = model->config();
  const int64_t t = 90, budget = 30;
  auto r = run(*model, {"snapkv", "uniform", budget, {{"window", "8"}, {"gqa", "none"}}}, t);
  REQUIRE(r.report.compressed);
  const int64_t per_token_q = cfg.num_heads * cfg.head_dim * 2 * 4;  // bytes per token at query-head granularity
  CHECK(r.report.kept_bytes == cfg.num_layers * budget * per_token_q);
  for (int64_t l = 0; l < cfg.num_layers; ++l) {
    auto pos = r.cache.positions(l);
    REQUIRE(pos.size(1) == cfg.num_heads);       // one slot per query head
    CHECK(pos.size(2) == budget + 1);            // kept prompt tokens + the decoded one
    CHECK(pos.select(2, -1).eq(t).all().item<bool>());
    CHECK(at::equal(pos[0][0].narrow(0, budget - 8, 8), at::arange(t - 8, t, at::kLong)));
  }
  // Heads of one group may keep different tokens (that is the point of the mode).
  bool any_differs = false;
  for (int64_t l = 0; l < cfg.num_layers; ++l) {
    auto pos = r.cache.positions(l)[0];
    any_differs = any_differs || !at::equal(pos[0], pos[1]);
  }
  CHECK(any_differs);
  // Query head j stores the keys of KV head j / group at the positions it kept.
  auto full = run(*model, {"full", "uniform", 0, {}}, t);
  const int64_t group = cfg.num_heads / cfg.num_kv_heads;
  for (int64_t l = 0; l < cfg.num_layers; ++l) {
    auto pos = r.cache.positions(l)[0];
    auto keys = r.cache.keys(l)[0];
    auto full_keys = full.cache.keys(l)[0];
    for (int64_t j = 0; j < cfg.num_heads; ++j) {
      // The kept prompt slots (the last slot is the decoded token, computed after eviction).
      auto kept = pos[j].narrow(0, 0, budget);
      CHECK(at::equal(keys[j].narrow(0, 0, budget), full_keys[j / group].index_select(0, kept)));
    }
  }
}
