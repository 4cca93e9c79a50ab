// OpenedModel: config, tokenizer and stop tokens resolved when a checkpoint opens, weights on
// first use.
#include "catch_torch.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "models/generation/generate.h"
#include "models/loaders/load_model.h"
#include "models/loaders/opened_model.h"
#include "test_paths.h"
#include "test_support.h"

using namespace ripplekv;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

bool has(const TokenIds& ids, TokenId id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); }

}  // namespace

TEST_CASE("OpenedModel: a HF folder opens without loading its weights - stop tokens from both configs and the tokenizer",
          "[models][loaders]") {
  const fs::path dir = test::scratch_dir("loaders", "opened");
  for (const auto* f : {"config.json", "model.safetensors"}) fs::copy_file(fs::path(test::fixture("hf/llama_gqa")) / f, dir / f);
  std::ofstream(dir / "generation_config.json") << R"({"bos_token_id": 1, "eos_token_id": [2, 7]})";
  const auto tokenizer = test::shared_data("tokenizers/llama2/tokenizer.model");

  const OpenedModel opened(dir.string(), tokenizer, {});
  CHECK_FALSE(opened.loaded());
  CHECK(opened.tokenizer_path() == tokenizer);
  CHECK(opened.config().num_layers == 2);
  // config.json's EOS, generation_config.json's extra one, and the tokenizer's EOS (2).
  CHECK(has(opened.stop_tokens(), 2));
  CHECK(has(opened.stop_tokens(), 7));
  CHECK_FALSE(has(opened.stop_tokens(), 1));
  // The same list default_stop_tokens gives for the loaded model.
  const auto loaded = load_hf_model(dir.string(), {});
  CHECK(opened.stop_tokens() == default_stop_tokens(loaded->config(), opened.tokenizer()));
  CHECK_FALSE(opened.loaded());

  const CausalLM& model = opened.model();
  CHECK(opened.loaded());
  CHECK(&opened.model() == &model);  // loaded once
  CHECK(model.fingerprint() == loaded->fingerprint());
  CHECK(opened.identity().fingerprint == loaded->identity().fingerprint);
}

TEST_CASE("OpenedModel: a llama2.c file is loaded at once - it stops on BOS as run.c does", "[models][loaders]") {
  const OpenedModel opened(test::shared_data("stories260K/stories260K.bin"), "", {});
  CHECK(opened.loaded());
  CHECK(fs::path(opened.tokenizer_path()).filename() == "tok512.model");
  CHECK(has(opened.stop_tokens(), opened.tokenizer().bos_id()));
  CHECK(opened.model().config().vocab_size == 512);
}

TEST_CASE("OpenedModel: a missing checkpoint is an error naming it", "[models][loaders]") {
  CHECK_THROWS_WITH(OpenedModel("/nonexistent/ripplekv-model", "", {}), Contains("/nonexistent/ripplekv-model"));
  const fs::path empty = test::scratch_dir("loaders", "opened_empty");
  CHECK_THROWS_WITH(OpenedModel(empty.string(), "", {}), Contains("no config.json") && Contains("get_model.sh"));
}

TEST_CASE("OpenedModel: a folder without config.json says how to load what it holds", "[models][loaders]") {
  // A llama2.c folder also holds a tokenizer.bin (first in name order here), which is no checkpoint.
  const fs::path llama2c = test::scratch_dir("loaders", "opened_llama2c_folder");
  test::write_text(llama2c / "a_tokenizer.bin", "not a llama2.c header, nor the size one implies");
  fs::copy_file(test::shared_data("stories260K/stories260K.bin"), llama2c / "model.bin",
                fs::copy_options::overwrite_existing);
  CHECK_THROWS_WITH(OpenedModel(llama2c.string(), "", {}),
                    Contains("no config.json") && Contains("--model " + (llama2c / "model.bin").string()));
  const fs::path other_bin = test::scratch_dir("loaders", "opened_other_bin_folder");
  test::write_text(other_bin / "training_args.bin", "not a llama2.c header");
  CHECK_THROWS_WITH(OpenedModel(other_bin.string(), "", {}),
                    !Contains("training_args.bin") && Contains("get_model.sh"));
  const fs::path gguf = test::scratch_dir("loaders", "opened_gguf_folder");
  test::write_text(gguf / "model-q8_0.GGUF", "not read");
  CHECK_THROWS_WITH(OpenedModel(gguf.string(), "", {}), Contains("model-q8_0.GGUF") && Contains("gguf_to_hf.py"));
}
