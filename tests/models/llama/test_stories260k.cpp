// The real pretrained stories260K (llama2.c) must reproduce its reference greedy output.
#include "catch_torch.h"
#include <nlohmann/json.hpp>

#include <fstream>
#include <limits>

#include "models/generation/generate.h"
#include "models/loaders/load_model.h"
#include "models/tokenizer/tokenizer.h"
#include "test_paths.h"

using namespace ripplekv;

TEST_CASE("stories260K reproduces the 256-token greedy reference", "[models][stories260k]") {
  std::ifstream in(test::shared_data("stories260K/greedy_reference.json"));
  REQUIRE(in);
  const auto ref = nlohmann::json::parse(in);
  const auto expected = ref["generated_token_ids"].get<std::vector<int64_t>>();
  REQUIRE(expected.size() == 256);

  auto model = load_model(test::shared_data("stories260K/stories260K.bin"), {});
  CHECK(model->config().num_layers == 5);
  CHECK(model->config().num_heads == 8);
  CHECK(model->config().num_kv_heads == 4);
  Tokenizer tok(test::shared_data("stories260K/tok512.model"));

  KVCache cache(model->num_layers());
  GenerateOptions go;
  go.max_new_tokens = 256;
  go.stop_tokens = {1};  // run.c stops on BOS
  auto r = greedy_generate(*model, {1}, cache, go);
  REQUIRE(r.tokens == expected);
  CHECK(tok.decode(r.tokens) == ref["text"].get<std::string>());
  // The cache holds the prompt and every generated token but the last one.
  CHECK(cache.length(0) == 256);
}

TEST_CASE("Stop tokens: reported, and masked before min_new_tokens as HF generate does", "[models][generate]") {
  auto model = load_model(test::shared_data("stories260K/stories260K.bin"), {});
  GenerateOptions go;
  go.max_new_tokens = 8;
  KVCache c0(model->num_layers());
  const auto free_run = greedy_generate(*model, {1}, c0, go);
  REQUIRE(free_run.tokens.size() == 8);
  const int64_t first = free_run.tokens[0];

  // The first greedy token is a stop token: generation ends at once and says which.
  go.stop_tokens = {first};
  KVCache c1(model->num_layers());
  const auto stopped = greedy_generate(*model, {1}, c1, go);
  CHECK(stopped.stopped);
  CHECK(stopped.stop_token == first);
  CHECK(stopped.tokens.empty());

  // With min_new_tokens = 1 it cannot be chosen first: the runner-up is taken instead.
  go.min_new_tokens = 1;
  KVCache c2(model->num_layers());
  const auto forced = greedy_generate(*model, {1}, c2, go);
  REQUIRE_FALSE(forced.tokens.empty());
  KVCache c3(model->num_layers());
  auto logits = model->prefill(at::tensor(std::vector<int64_t>{1}, at::kLong).view({1, 1}), c3)[0][0];
  logits[first] = -std::numeric_limits<float>::infinity();
  CHECK(forced.tokens[0] == logits.argmax().item<int64_t>());
  CHECK(forced.tokens[0] != first);
}
