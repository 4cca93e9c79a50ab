// The sentencepiece tokenizer gives exactly the ids Python sentencepiece gives
// (fixtures from scripts/make_tokenizer_fixtures.py).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "models/tokenizer/tokenizer.h"
#include "test_paths.h"

using namespace ripplekv;

namespace {
void check_against_fixture(const std::string& fixture_name, const std::string& model_rel) {
  std::ifstream in(test::fixture("tokenizer/" + fixture_name));
  REQUIRE(in);
  const auto ref = nlohmann::json::parse(in);
  Tokenizer tok(test::shared_data(model_rel));
  CHECK(tok.vocab_size() == ref["vocab_size"].get<int>());
  CHECK(tok.bos_id() == ref["special"]["bos"]["id"].get<int>());
  CHECK(tok.eos_id() == ref["special"]["eos"]["id"].get<int>());
  CHECK(tok.unk_id() == ref["special"]["unk"]["id"].get<int>());
  CHECK(tok.pad_id() == ref["special"]["pad"]["id"].get<int>());
  REQUIRE(ref["cases"].size() >= 20);
  for (const auto& c : ref["cases"]) {
    const auto text = c["text"].get<std::string>();
    INFO(fixture_name << ": " << text);
    const auto ids = c["ids"].get<TokenIds>();
    CHECK(tok.encode(text, false) == ids);
    auto with_bos = tok.encode(text, true);
    REQUIRE(!with_bos.empty());
    CHECK(with_bos.front() == tok.bos_id());
    CHECK(tok.decode(ids) == c["decoded"].get<std::string>());
    for (size_t i = 0; i < ids.size(); ++i) CHECK(tok.id_to_piece(ids[i]) == c["pieces"][i].get<std::string>());
  }
}
}  // namespace

TEST_CASE("Llama-2 tokenizer matches Python sentencepiece", "[models][tokenizer]") {
  check_against_fixture("llama2.json", "tokenizers/llama2/tokenizer.model");
}

TEST_CASE("stories260K tokenizer matches Python sentencepiece", "[models][tokenizer]") {
  check_against_fixture("tok512.json", "stories260K/tok512.model");
}

TEST_CASE("Tokenizer: missing or malformed model files are clear errors", "[models][tokenizer][bad-input]") {
  CHECK_THROWS_WITH(Tokenizer("/nonexistent/tokenizer.model"), Catch::Contains("tokenizer model not found"));
  const auto garbage = test::fixture("hf/qwen2/config.json");  // a file, but not a sentencepiece model
  CHECK_THROWS_WITH(Tokenizer(garbage), Catch::Contains("not a sentencepiece model"));
  CHECK_THROWS_WITH(find_tokenizer(test::fixture("hf/qwen2"), "", 256), Catch::Contains("--tokenizer"));
}
