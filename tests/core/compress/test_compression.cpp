// Compression end to end on a tiny HF model: every selector x allocator keeps exactly its
// budgets, the window, and a decodable cache whose bytes match the kept tokens.
#include "catch_torch.h"

#include <algorithm>
#include <numeric>

#include "core/compress/compression.h"
#include "core/compress/fidelity.h"
#include "core/compress/method_presets.h"
#include "core/ripple/sensitivity_profile.h"
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

Run run(const LlamaModel& model, const CompressionSpec& spec, int64_t prompt_len) {
  auto method = CompressionMethod::create(spec, model.config());
  at::manual_seed(3);
  auto tokens = at::randint(3, model.config().vocab_size, {1, prompt_len}, at::kLong);
  Run r{{}, KVCache(model.num_layers()), {}};
  HookRegistry hooks;
  auto session = method->begin(hooks, prompt_len);
  auto logits = model.prefill(tokens, r.cache, &hooks);
  r.report = session->finish(r.cache);
  r.next_logits = model.decode(logits.argmax(-1).view({1, 1}), r.cache, &hooks);
  return r;
}

}  // namespace

TEST_CASE("Every selector x allocator keeps exact budgets and a consistent cache", "[core][compress]") {
  auto model = load_model(test::fixture("compression/model"), {});  // 4 layers, GQA 8/2
  const auto& cfg = model->config();
  const int64_t per_token_bytes = cfg.num_kv_heads * cfg.head_dim * 2 * 4;
  for (const auto& sel : selector_names()) {
    for (const auto& alloc : {std::string("uniform"), std::string("pyramid"), std::string("cake"),
                              std::string("squeeze")}) {
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

TEST_CASE("Fidelity: the full cache has KL 0, compression costs KL, an uncompressed prompt costs none",
          "[core][compress][fidelity]") {
  auto model = load_model(test::fixture("compression/model"), {});
  at::manual_seed(5);
  std::vector<std::vector<int64_t>> texts;
  for (int i = 0; i < 2; ++i) {
    auto t = at::randint(3, 256, {120}, at::kLong);
    texts.emplace_back(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + 120);
  }
  texts.push_back({1, 2, 3});  // too short: skipped
  FidelityOptions o;
  o.prompt_tokens = 96;
  o.continuation = 16;
  auto rows = run_fidelity(*model, texts, {"full", "snapkv@window=8", "streamingllm"}, {24, 96}, o);
  REQUIRE(rows.size() == 5);  // full once, then 2 budgets for each other method
  CHECK(rows[0].method == "full");
  CHECK(rows[0].kl_max == 0.0);
  CHECK(rows[0].top1_agreement == 1.0);
  CHECK(rows[0].texts == 2);
  CHECK(rows[0].positions == 2 * 16);
  for (size_t i = 1; i < rows.size(); ++i) {
    INFO(rows[i].method << " budget " << rows[i].budget);
    if (rows[i].budget == 96) {  // budget == prompt: not compressed, identical to full
      CHECK(rows[i].kl_max == 0.0);
      CHECK(rows[i].compressed_texts == 0);
    } else {
      CHECK(rows[i].kl_mean > 0.0);
      CHECK(rows[i].compressed_texts == 2);
      CHECK(rows[i].kv_fraction == Approx(24.0 / 96.0));
    }
  }
  const auto md = fidelity_markdown(rows);
  CHECK(md.find("| snapkv@window=8 | 24 |") != std::string::npos);
  CHECK(fidelity_csv(rows).find("method,budget,texts") == 0);
  for (const auto& r : rows) {  // per text: their mean is the row's (same positions per text)
    REQUIRE(r.text_kl_mean.size() == 2);
    REQUIRE(r.text_top1.size() == 2);
    CHECK((r.text_kl_mean[0] + r.text_kl_mean[1]) / 2 == Approx(r.kl_mean).margin(1e-12));
    CHECK((r.text_top1[0] + r.text_top1[1]) / 2 == Approx(r.top1_agreement).margin(1e-12));
  }
  const auto per_text = fidelity_texts_csv(rows);
  CHECK(per_text.find("method,budget,text,kl_mean,top1_agreement\n") == 0);
  CHECK(std::count(per_text.begin(), per_text.end(), '\n') == static_cast<std::ptrdiff_t>(1 + 2 * rows.size()));
  CHECK_THROWS_WITH(run_fidelity(*model, {{1, 2, 3}}, {"snapkv"}, {24}, o), Catch::Contains("no text has"));
  CHECK_THROWS_WITH(run_fidelity(*model, texts, {"snapkvv"}, {24}, o), Catch::Contains("unknown method"));
}

TEST_CASE("Fidelity: one shared prefill gives every method exactly the rows of a run of its own",
          "[core][compress][fidelity]") {
  auto model = load_model(test::fixture("compression/model"), {});
  at::manual_seed(11);
  std::vector<std::vector<int64_t>> texts;
  for (int i = 0; i < 2; ++i) {
    auto t = at::randint(3, 256, {110}, at::kLong);
    texts.emplace_back(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + 110);
  }
  FidelityOptions o;
  o.prompt_tokens = 96;
  o.continuation = 8;
  // A profile for the ripple rows (any per-layer scores; tied to this checkpoint).
  SensitivityProfile profile;
  profile.num_layers = model->num_layers();
  profile.weights_fingerprint = model->fingerprint();
  for (int64_t l = 0; l < profile.num_layers; ++l) profile.layers.push_back({0.1 * (l + 1), 0, 0, 0, 0, 1});
  const auto dir = test::scratch_dir("fidelity", "shared");
  const auto profile_path = (dir / "profile.json").string();
  write_profile_json(profile, profile_path);
  // Every preset (the registry's list), with windows that fit the prompt, plus per-query-head SnapKV.
  std::vector<std::string> methods;
  for (const auto& p : method_presets()) {
    const std::string name = p.name;
    if (name == "full" || name == "random" || name == "knorm" || name == "streamingllm") {
      methods.push_back(name);
    } else if (name == "ripple") {
      methods.push_back("ripple@window=8,ratio=4,profile=" + profile_path);
    } else {
      methods.push_back(name + "@window=8");
    }
  }
  methods.push_back("snapkv@window=8,gqa=none");
  REQUIRE(methods.size() >= 11);
  const std::vector<int64_t> budgets{24, 48};
  const auto together = run_fidelity(*model, texts, methods, budgets, o);
  std::size_t row = 0;
  for (const auto& m : methods) {
    const auto alone = run_fidelity(*model, texts, {m}, budgets, o);
    for (const auto& r : alone) {
      REQUIRE(row < together.size());
      const auto& t = together[row++];
      INFO(m << " budget " << r.budget);
      CHECK(t.method == r.method);
      CHECK(t.budget == r.budget);
      CHECK(t.kl_mean == r.kl_mean);  // exactly: the observers of other methods change nothing
      CHECK(t.kl_max == r.kl_max);
      CHECK(t.top1_agreement == r.top1_agreement);
      CHECK(t.kv_fraction == r.kv_fraction);
      CHECK(t.compressed_texts == r.compressed_texts);
    }
  }
  CHECK(row == together.size());
  std::filesystem::remove_all(dir);
}
