// Each compression method keeps exactly the tokens its reference implementation keeps and
// gives the same next-token logits (fixtures: scripts/make_compression_fixtures.py, ports of
// KVCache-Factory SnapKV/PyramidKV/H2O/StreamingLLM, kvpress KnormPress, CAKE and
// SqueezeAttention on a tiny random GQA Llama, cross-checked there against kvpress and CAKE).
#include "catch_torch.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "core/compress/compression.h"
#include "models/loaders/load_model.h"
#include "test_paths.h"

using namespace ripplekv;
using nlohmann::json;

namespace {

CompressionSpec spec_for(const json& c) {
  const auto m = c["method"].get<std::string>();
  CompressionSpec s;
  s.budget = c["budget"].get<int64_t>();
  auto opt = [&](const char* key, const std::string& value) { s.options[key] = value; };
  auto num = [&](const char* key) { return c[key].dump(); };
  auto snap_opts = [&] {
    opt("window", num("window"));
    opt("kernel", num("kernel"));
    opt("pooling", c["pooling"].get<std::string>() == "maxpool" ? "max" : "avg");
    opt("gqa", c["gqa_combine"].get<std::string>());
  };
  if (m == "snapkv" || m == "pyramidkv") {
    s.selector = "snapkv";
    s.allocator = m == "snapkv" ? "uniform" : "pyramid";
    snap_opts();
    if (m == "pyramidkv") {
      opt("beta", num("beta"));
      opt("exact_total", "0");  // reproduce the reference schedule even where its total drifts
    }
  } else if (m == "h2o") {
    s.selector = "h2o";
    opt("window", num("window"));
    opt("gqa", c["gqa_combine"].get<std::string>());
  } else if (m == "streamingllm") {
    s.selector = "streamingllm";
    opt("sinks", num("sinks"));
  } else if (m == "knorm") {
    s.selector = "knorm";
  } else if (m == "cake") {
    s.selector = "cake";
    s.allocator = "cake";
    opt("window", num("window"));
    opt("kernel", num("kernel"));
    opt("gamma", num("gamma"));
    opt("tau1", num("tau1"));
    opt("tau2", num("tau2"));
  } else if (m == "squeeze") {
    s.allocator = "squeeze";
    opt("p", num("p"));
    opt("exact_total", "0");
    if (c["selection"].get<std::string>() == "snapkv") {
      s.selector = "snapkv";
      snap_opts();
    } else {
      s.selector = "streamingllm";
      opt("sinks", num("sinks"));
    }
  } else {
    FAIL("unknown method in fixture: " << m);
  }
  return s;
}

}  // namespace

TEST_CASE("Compression methods match their reference implementations", "[core][compress][reference]") {
  std::ifstream in(test::fixture("compression/reference.json"));
  REQUIRE(in);
  const auto ref = json::parse(in);
  auto model = load_model(test::fixture("compression/model"), {});
  const auto ids = ref["prompt"]["ids"].get<std::vector<int64_t>>();
  const auto t = static_cast<int64_t>(ids.size());
  auto tokens = at::tensor(ids, at::kLong).view({1, t});
  REQUIRE(ref["cases"].size() >= 16);
  for (const auto& c : ref["cases"]) {
    const auto name = c["name"].get<std::string>();
    DYNAMIC_SECTION(name) {
      auto method = CompressionMethod::create(spec_for(c["config"]), model->config());
      KVCache cache(model->num_layers());
      HookRegistry hooks;
      auto session = method->begin(hooks, t);
      auto logits = model->prefill(tokens, cache, &hooks);
      const int64_t next = logits.argmax(-1).item<int64_t>();
      REQUIRE(next == ref["next_token"].get<int64_t>());
      auto report = session->finish(cache, *model);
      REQUIRE(report.compressed);
      CHECK(report.kept == c["layer_budgets"].get<std::vector<int64_t>>());
      for (int64_t l = 0; l < model->num_layers(); ++l) {
        const auto& layer = c["layers"][static_cast<size_t>(l)];
        auto pos = cache.positions(l)[0];
        for (int64_t h = 0; h < pos.size(0); ++h) {
          INFO(name << " layer " << l << " KV head " << h);
          auto got = std::vector<int64_t>(pos[h].data_ptr<int64_t>(), pos[h].data_ptr<int64_t>() + pos.size(1));
          CHECK(got == layer["kept"][static_cast<size_t>(h)].get<std::vector<int64_t>>());
        }
      }
      auto after = model->decode(at::tensor(std::vector<int64_t>{next}, at::kLong).view({1, 1}), cache, &hooks)[0][0];
      std::vector<float> expected_v = c["next_token_logits"].get<std::vector<float>>();
      auto expected = at::tensor(expected_v);
      const double diff = (after - expected).abs().max().item<double>();
      INFO(name << ": max |logit diff| = " << diff);
      CHECK(diff < 1e-4);
    }
  }
}
