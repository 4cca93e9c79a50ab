// Fidelity through the evaluation engine (eval/fidelity): KL 0 for the full cache, one shared
// prefill equal to runs of their own, records that resume after a kill (noting another thread
// count), folders that refuse other settings.
#include "catch_torch.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <ATen/Parallel.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "aten_threads.h"
#include "core/compress/method_presets.h"
#include "core/ripple/sensitivity_profile.h"
#include "eval/fidelity/fidelity.h"
#include "eval/run_arithmetic.h"
#include "models/loaders/load_model.h"
#include "test_paths.h"
#include "test_support.h"

using namespace ripplekv;
using namespace ripplekv::eval;
namespace fs = std::filesystem;

namespace {

std::vector<TokenIds> random_texts(int n, int64_t len, uint64_t seed) {
  at::manual_seed(seed);
  std::vector<TokenIds> texts;
  for (int i = 0; i < n; ++i) {
    auto t = at::randint(3, 256, {len}, at::kLong);
    texts.emplace_back(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + len);
  }
  return texts;
}

// Sends std::cerr to a stream while in scope.
class CerrTo {
 public:
  explicit CerrTo(std::ostream& to) : old_(std::cerr.rdbuf(to.rdbuf())) {}
  ~CerrTo() { std::cerr.rdbuf(old_); }
  CerrTo(const CerrTo&) = delete;
  CerrTo& operator=(const CerrTo&) = delete;

 private:
  std::streambuf* old_;
};

std::size_t lines(const fs::path& p) {
  std::ifstream in(p);
  return static_cast<std::size_t>(std::count(std::istreambuf_iterator<char>(in), {}, '\n'));
}

}  // namespace

TEST_CASE("Fidelity: the full cache has KL 0, compression costs KL, an uncompressed prompt costs none",
          "[eval][fidelity]") {
  auto model = load_model(test::fixture("compression/model"), {});
  auto texts = random_texts(2, 120, 5);
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
          "[eval][fidelity]") {
  auto model = load_model(test::fixture("compression/model"), {});
  const auto texts = random_texts(2, 110, 11);
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
}

TEST_CASE("Fidelity: records resume after a kill and equal an uninterrupted run", "[eval][fidelity]") {
  auto model = load_model(test::fixture("compression/model"), {});
  const auto texts = random_texts(3, 110, 21);
  FidelityOptions o;
  o.prompt_tokens = 96;
  o.continuation = 8;
  const auto dir = test::scratch_dir("fidelity", "resume");
  std::vector<FidelityVariant> variants = {{"snapkv@window=8", 24, dir / "snapkv"}, {"h2o@window=8", 24, dir / "h2o"}};
  const auto first = run_fidelity(*model, texts, variants, o);
  REQUIRE(lines(dir / "snapkv" / "fidelity.jsonl") == 3);
  CHECK(fs::exists(dir / "snapkv" / "config.json"));
  CHECK(fs::exists(dir / "snapkv" / "kept" / "fidelity.jsonl"));
  // A kill during the third text's write: a torn last line for one variant (the other has all three).
  const auto path = dir / "snapkv" / "fidelity.jsonl";
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto second_end = text.find('\n', text.find('\n') + 1);
  std::ofstream(path, std::ios::trunc) << text.substr(0, second_end + 1) << "{\"_id\": \"text-2\", \"kl\": [0.1";
  const auto again = run_fidelity(*model, texts, variants, o);
  CHECK(lines(path) == 3);
  REQUIRE(again.size() == first.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    CHECK(again[i].kl_mean == first[i].kl_mean);
    CHECK(again[i].kl_p90 == first[i].kl_p90);
    CHECK(again[i].text_kl_mean == first[i].text_kl_mean);
    CHECK(again[i].top1_agreement == first[i].top1_agreement);
  }
  // Each variant folder records the arithmetic of its records; a resume with another thread
  // count goes on and says so.
  const auto info = nlohmann::json::parse(test::read_text(dir / "snapkv" / "config.json")).at("info");
  const int threads = at::get_num_threads();
  CHECK(info.value("threads", -1) == threads);
  CHECK(info.value("cpu_kernels", "") == cpu_kernels_label(model->identity().dtype));
  {
    const auto records = test::read_text(path);
    std::ostringstream captured;
    const CerrTo redirect(captured);
    test::with_threads(threads + 1, [&] { (void)run_fidelity(*model, texts, variants, o); });
    CHECK(test::read_text(path) == records);  // every record was there: none redone
    CHECK_THAT(captured.str(), Catch::Contains(fmt::format("snapkv: started on {} threads, resumed on {}", threads,
                                                           threads + 1)));
  }
  // The same folders with other settings: an error naming what differs, nothing overwritten.
  FidelityOptions longer = o;
  longer.continuation = 12;
  CHECK_THROWS_WITH(run_fidelity(*model, texts, variants, longer), Catch::Contains("continuation"));
  CHECK(lines(path) == 3);
}
