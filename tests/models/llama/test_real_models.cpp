// Parity with HF transformers on the real pretrained models (scripts/make_real_model_fixtures.py,
// weights from scripts/get_model.sh): a ~2,000-token LongBench prompt rendered with the model's
// chat template, the top-20 logits at its last 64 positions, and 32 greedy tokens.
//
// float32 tolerance, peer-relative against a float64 truth. Two correct float32 implementations
// differ by the order of their sums, and over 30 layers that reaches ~1e-4 on logits of ~20:
// HF's own eager and SDPA paths differ by 6.3e-5 on this input, and each is ~2.2e-4 from an
// all-float64 run of the same weights (`logits_fp64`, scripts/make_real_model_fixtures.py
// --add-fp64). So our float32 logits must be as accurate as HF's float32 logits against that
// float64 reference, up to a factor 1.5, on the max and on the mean. (A first rule, "within 2x
// HF's eager-vs-SDPA spread of HF eager", had no such reference behind its factor and failed at
// 2.45x while the float64 comparison below shows our error is HF's size.)
// bfloat16: peer-relative as in test_hf_parity.cpp: as accurate against HF float32 as HF's own
// bfloat16 run is, up to a factor 1.5 plus one bfloat16 ulp at the largest logit.
#include "catch_torch.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "models/generation/generate.h"
#include "models/loaders/load_model.h"
#include "test_paths.h"

using namespace ripplekv;

namespace {

nlohmann::json read_reference(const std::string& name) {
  std::ifstream in(test::fixture("real/" + name + "/reference.json"));
  REQUIRE(in);
  return nlohmann::json::parse(in);
}

at::Tensor rows(const nlohmann::json& j) {
  std::vector<float> flat;
  for (const auto& r : j)
    for (const auto& v : r) flat.push_back(v.get<float>());
  return at::tensor(flat).view({static_cast<int64_t>(j.size()), -1});
}

// Our logits at the reference's top-20 ids of the last `positions` prompt positions: the
// prompt's head prefilled first, its last `positions` tokens then with all-position logits.
at::Tensor top_logits(const CausalLM& m, const std::vector<int64_t>& ids, const at::Tensor& top_ids) {
  const int64_t positions = top_ids.size(0);
  const int64_t head = static_cast<int64_t>(ids.size()) - positions;
  KVCache cache(m.num_layers());
  const auto all = at::tensor(ids, at::kLong).view({1, -1});
  m.prefill(all.narrow(1, 0, head), cache);
  const auto logits = m.prefill(all.narrow(1, head, positions), cache, nullptr, LogitsFor::AllTokens)[0];
  return logits.to(at::kFloat).gather(1, top_ids);
}

void check_float32(const std::string& name) {
  const auto ref = read_reference(name);
  auto model = load_model(test::real_model(name), {});
  const auto ids = ref["prompt_ids"].get<std::vector<int64_t>>();
  REQUIRE(ids.size() >= 1500);
  const auto top_ids = rows(ref["top_ids"]).to(at::kLong);
  const auto expected = rows(ref["logits_fp32"]);
  const auto truth = rows(ref["logits_fp64"]).to(at::kDouble);
  const auto got = top_logits(*model, ids, top_ids);
  const auto err = (got.to(at::kDouble) - truth).abs();
  const double ours_max = err.max().item<double>(), ours_mean = err.mean().item<double>();
  const double hf_max = std::max(ref["fp32_eager_vs_fp64_max_abs"].get<double>(),
                                 ref["fp32_sdpa_vs_fp64_max_abs"].get<double>());
  const double hf_mean = std::max(ref["fp32_eager_vs_fp64_mean_abs"].get<double>(),
                                  ref["fp32_sdpa_vs_fp64_mean_abs"].get<double>());
  INFO(name << ": " << ids.size() << "-token prompt, 64 positions x top-20 logits: max |ours - float64| = "
            << ours_max << " vs HF float32's " << hf_max << ", mean " << ours_mean << " vs " << hf_mean
            << "; max |ours - HF eager| = " << (got - expected).abs().max().item<double>()
            << ", HF eager vs SDPA (all vocab) = " << ref["eager_vs_sdpa_max_abs"].get<double>());
  CHECK(ours_max <= 1.5 * hf_max);
  CHECK(ours_mean <= 1.5 * hf_mean);
  // The same ranking: our argmax at every position is HF's.
  CHECK(at::equal(got.argmax(1), at::zeros({top_ids.size(0)}, at::kLong)));

  KVCache cache(model->num_layers());
  GenerateOptions go;
  go.max_new_tokens = 32;  // the reference does not stop at EOS
  const auto r = greedy_generate(*model, ids, cache, go);
  CHECK(r.tokens == ref["greedy_new_tokens"].get<std::vector<int64_t>>());
}

void check_bfloat16(const std::string& name) {
  const auto ref = read_reference(name);
  LoadOptions lo;
  lo.dtype = at::kBFloat16;
  auto model = load_model(test::real_model(name), lo);
  const auto ids = ref["prompt_ids"].get<std::vector<int64_t>>();
  const auto top_ids = rows(ref["top_ids"]).to(at::kLong);
  const auto fp32 = rows(ref["logits_fp32"]);
  const auto hf_bf16 = rows(ref["logits_bf16"]);
  const auto got = top_logits(*model, ids, top_ids);
  const double ours_max = (got - fp32).abs().max().item<double>();
  const double hf_max = (hf_bf16 - fp32).abs().max().item<double>();
  const double ours_mean = (got - fp32).abs().mean().item<double>();
  const double hf_mean = (hf_bf16 - fp32).abs().mean().item<double>();
  const double largest = fp32.abs().max().item<double>();
  const double ulp = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(largest))) - 7);
  INFO(name << ": max |ours bf16 - HF fp32| = " << ours_max << " vs HF bf16's " << hf_max << "; mean " << ours_mean
            << " vs " << hf_mean << "; one bf16 ulp at " << largest << " is " << ulp);
  CHECK(ours_max <= 1.5 * hf_max + ulp);
  CHECK(ours_mean <= 1.5 * hf_mean);
}

}  // namespace

TEST_CASE("SmolLM2-135M-Instruct: float32 logits and greedy tokens equal HF transformers", "[models][real]") {
  check_float32("smollm2-135m-instruct");
}

TEST_CASE("SmolLM2-135M-Instruct: bfloat16 logits as accurate as HF's bfloat16", "[models][real][bf16]") {
  check_bfloat16("smollm2-135m-instruct");
}

TEST_CASE("Qwen2.5-Coder-1.5B-Instruct: float32 logits and greedy tokens equal HF transformers",
          "[models][real][long]") {
  check_float32("qwen2.5-coder-1.5b-instruct");
}

TEST_CASE("Qwen2.5-Coder-1.5B-Instruct: bfloat16 logits as accurate as HF's bfloat16", "[models][real][bf16][long]") {
  check_bfloat16("qwen2.5-coder-1.5b-instruct");
}
