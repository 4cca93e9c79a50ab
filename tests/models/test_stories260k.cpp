// The real pretrained stories260K (llama2.c) must reproduce its reference greedy output.
#include "catch_torch.h"
#include <nlohmann/json.hpp>

#include <fstream>

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
  std::vector<int> ids(r.tokens.begin(), r.tokens.end());
  CHECK(tok.decode(ids) == ref["text"].get<std::string>());
  // The cache holds the prompt and every generated token but the last one.
  CHECK(cache.length(0) == 256);
}
