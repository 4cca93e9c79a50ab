// Malformed checkpoints and configs give clear errors naming the file and the fix, never a crash.
#include "catch_torch.h"

#include <nlohmann/json.hpp>

#include <cstring>
#include <filesystem>
#include <algorithm>
#include <functional>
#include <limits>
#include <fstream>

#include "models/config/model_config.h"
#include "models/loaders/load_model.h"
#include "models/loaders/safetensors.h"
#include "test_paths.h"
#include "test_support.h"

using namespace ripplekv;
namespace fs = std::filesystem;

namespace {

// A fresh folder of its own (numbered: one per TempDir made), removed when the process exits.
struct TempDir {
  fs::path path;
  TempDir() {
    static int made = 0;
    path = test::scratch_dir("bad_input", std::to_string(made++));
  }
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void write_file(const fs::path& p, const std::string& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

// A copy of the qwen2 fixture whose model.safetensors is replaced by `bytes`.
fs::path checkpoint_with(const TempDir& t, const std::string& bytes) {
  const auto src = fs::path(test::fixture("hf/qwen2"));
  fs::copy_file(src / "config.json", t.path / "config.json", fs::copy_options::overwrite_existing);
  write_file(t.path / "model.safetensors", bytes);
  return t.path;
}

// Rebuilds a safetensors file with an edited header.
std::string with_header(const std::string& file, const std::function<void(nlohmann::json&)>& edit) {
  uint64_t n = 0;
  std::memcpy(&n, file.data(), 8);
  auto header = nlohmann::json::parse(file.substr(8, n));
  edit(header);
  const auto h = header.dump();
  const uint64_t len = h.size();
  return std::string(reinterpret_cast<const char*>(&len), 8) + h + file.substr(8 + n);
}

}  // namespace

TEST_CASE("Safetensors: corrupt files are clear errors", "[models][bad-input]") {
  const auto good = read_file(fs::path(test::fixture("hf/qwen2")) / "model.safetensors");
  REQUIRE(good.size() > 1000);

  SECTION("truncated file") {
    TempDir t;
    auto dir = checkpoint_with(t, good.substr(0, good.size() - 100));
    CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("outside the data section"));
  }
  SECTION("shorter than the length prefix") {
    TempDir t;
    auto dir = checkpoint_with(t, good.substr(0, 5));
    CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("too short"));
  }
  SECTION("header length larger than the file") {
    TempDir t;
    std::string bad = good;
    const uint64_t huge = good.size() * 4;
    std::memcpy(bad.data(), &huge, 8);
    auto dir = checkpoint_with(t, bad);
    CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("header length"));
  }
  SECTION("tensor offsets out of range") {
    TempDir t;
    auto bad = with_header(good, [](nlohmann::json& h) {
      h["model.norm.weight"]["data_offsets"] = {0, 1u << 30};
    });
    auto dir = checkpoint_with(t, bad);
    CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("model.norm.weight") && Catch::Contains("outside"));
  }
  SECTION("unknown dtype") {
    TempDir t;
    auto bad = with_header(good, [](nlohmann::json& h) { h["model.norm.weight"]["dtype"] = "F8_E4M3"; });
    auto dir = checkpoint_with(t, bad);
    CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("F8_E4M3") && Catch::Contains("not supported"));
  }
  SECTION("missing tensor") {
    TempDir t;
    // A valid file that lacks the tensor (its bytes removed too; a gap alone is a corrupt file).
    uint64_t n = 0;
    std::memcpy(&n, good.data(), 8);
    auto header = nlohmann::json::parse(good.substr(8, n));
    std::vector<std::pair<uint64_t, std::string>> order;
    for (auto it = header.begin(); it != header.end(); ++it) {
      if (it.key() != "__metadata__") order.emplace_back(it.value()["data_offsets"][0].get<uint64_t>(), it.key());
    }
    std::sort(order.begin(), order.end());
    std::string data;
    nlohmann::json kept = nlohmann::json::object();
    for (const auto& [begin, name] : order) {
      if (name == "model.layers.1.mlp.up_proj.weight") continue;
      auto e = header[name];
      const auto size = e["data_offsets"][1].get<uint64_t>() - begin;
      e["data_offsets"] = {data.size(), data.size() + size};
      data += good.substr(8 + n + begin, size);
      kept[name] = e;
    }
    const auto h = kept.dump();
    const uint64_t len = h.size();
    const std::string bad = std::string(reinterpret_cast<const char*>(&len), 8) + h + data;
    auto dir = checkpoint_with(t, bad);
    CHECK_THROWS_WITH(load_model(dir.string(), {}),
                      Catch::Contains("model.layers.1.mlp.up_proj.weight") && Catch::Contains("missing"));
  }
  SECTION("mis-shaped tensor") {
    TempDir t;
    auto bad = with_header(good, [](nlohmann::json& h) {
      // Same byte count, transposed shape: only the shape check can catch it.
      auto& e = h["model.layers.0.mlp.down_proj.weight"];
      auto shape = e["shape"];
      e["shape"] = {shape[1], shape[0]};
    });
    auto dir = checkpoint_with(t, bad);
    CHECK_THROWS_WITH(load_model(dir.string(), {}),
                      Catch::Contains("model.layers.0.mlp.down_proj.weight") && Catch::Contains("shape"));
  }
  SECTION("unexpected tensor") {
    TempDir t;
    auto bad = with_header(good, [](nlohmann::json& h) {
      h["model.extra.weight"] = {{"dtype", "F32"}, {"shape", {0}}, {"data_offsets", {0, 0}}};
    });
    auto dir = checkpoint_with(t, bad);
    CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("unexpected tensor \"model.extra.weight\""));
  }
  SECTION("not JSON") {
    TempDir t;
    std::string bad = good;
    bad[10] = '\x01';
    auto dir = checkpoint_with(t, bad);
    CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("not valid JSON"));
  }
  SECTION("header length cut by 1 or 2 bytes (the header still parses: it ends in padding)") {
    uint64_t n = 0;
    std::memcpy(&n, good.data(), 8);
    const std::string padded = nlohmann::json::parse(good.substr(8, n)).dump() + "  ";
    for (const uint64_t cut : {1u, 2u}) {
      TempDir t;
      const uint64_t len = padded.size() - cut;
      const std::string bad = std::string(reinterpret_cast<const char*>(&len), 8) + padded + good.substr(8 + n);
      auto dir = checkpoint_with(t, bad);
      CHECK_THROWS_WITH(load_model(dir.string(), {}), Catch::Contains("tensors end at byte") && Catch::Contains("damaged"));
    }
  }
  SECTION("NaN or Inf in a weight") {
    uint64_t n = 0;
    std::memcpy(&n, good.data(), 8);
    const auto header = nlohmann::json::parse(good.substr(8, n));
    const auto begin = header["model.layers.1.self_attn.v_proj.weight"]["data_offsets"][0].get<uint64_t>();
    for (const float bad_value : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
      TempDir t;
      std::string bad = good;
      std::memcpy(bad.data() + 8 + n + begin + 4 * 3, &bad_value, 4);  // element 3
      auto dir = checkpoint_with(t, bad);
      CHECK_THROWS_WITH(load_model(dir.string(), {}),
                        Catch::Contains("model.layers.1.self_attn.v_proj.weight") && Catch::Contains("non-finite") &&
                            Catch::Contains("flat index 3"));
    }
    // A finite float32 weight beyond float16's range overflows only in a float16 run.
    TempDir t;
    std::string big = good;
    const float huge = 1e6f;
    std::memcpy(big.data() + 8 + n + begin, &huge, 4);
    auto dir = checkpoint_with(t, big);
    CHECK_NOTHROW(load_model(dir.string(), {}));
    LoadOptions fp16;
    fp16.dtype = at::kHalf;
    CHECK_THROWS_WITH(load_model(dir.string(), fp16), Catch::Contains("exceed the range") && Catch::Contains("bfloat16"));
  }
  SECTION("no weights at all") {
    TempDir t;
    fs::copy_file(fs::path(test::fixture("hf/qwen2")) / "config.json", t.path / "config.json");
    CHECK_THROWS_WITH(load_model(t.path.string(), {}), Catch::Contains("no model.safetensors"));
  }
}

TEST_CASE("Config: unsupported or inconsistent configs are clear errors", "[models][bad-input]") {
  const auto base = nlohmann::json::parse(read_file(fs::path(test::fixture("hf/llama_gqa")) / "config.json"));
  auto parse = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto j = base;
    edit(j);
    return parse_hf_config_text(j.dump(), "config.json");
  };
  CHECK_NOTHROW(parse([](nlohmann::json&) {}));
  CHECK_THROWS_WITH(parse([](nlohmann::json& j) { j["num_key_value_heads"] = 3; }),
                    Catch::Contains("num_key_value_heads=3 does not divide num_attention_heads=4"));
  CHECK_THROWS_WITH(parse([](nlohmann::json& j) { j["sliding_window"] = 16; }),
                    Catch::Contains("sliding_window=16"));
  CHECK_THROWS_WITH(parse([](nlohmann::json& j) { j["rope_scaling"] = {{"rope_type", "yarn"}, {"factor", 4.0}}; }),
                    Catch::Contains("yarn") && Catch::Contains("not supported"));
  CHECK_THROWS_WITH(parse([](nlohmann::json& j) { j.erase("hidden_size"); }), Catch::Contains("hidden_size"));
  CHECK_THROWS_WITH(parse([](nlohmann::json& j) { j["hidden_size"] = "big"; }), Catch::Contains("wrong type"));
  CHECK_THROWS_WITH(parse([](nlohmann::json& j) { j["architectures"] = {"GPT2LMHeadModel"}; j["model_type"] = "gpt2"; }),
                    Catch::Contains("not supported"));
  CHECK_THROWS_WITH(parse([](nlohmann::json& j) { j["hidden_act"] = "gelu"; }), Catch::Contains("hidden_act"));
  CHECK_THROWS_WITH(parse_hf_config_text("{not json", "config.json"), Catch::Contains("not valid JSON"));
}

TEST_CASE("llama2.c: truncated or foreign files are clear errors", "[models][bad-input]") {
  const auto good = read_file(test::shared_data("stories260K/stories260K.bin"));
  TempDir t;
  write_file(t.path / "trunc.bin", good.substr(0, good.size() / 2));
  CHECK_THROWS_WITH(load_model((t.path / "trunc.bin").string(), {}), Catch::Contains("truncated"));
  write_file(t.path / "tiny.bin", good.substr(0, 10));
  CHECK_THROWS_WITH(load_model((t.path / "tiny.bin").string(), {}), Catch::Contains("too short"));
  write_file(t.path / "text.bin", std::string(4096, 'x'));
  CHECK_THROWS_WITH(load_model((t.path / "text.bin").string(), {}), Catch::Contains("bad llama2.c header"));
  CHECK_THROWS_WITH(load_model("/nonexistent/model", {}), Catch::Contains("does not exist"));
  CHECK_THROWS_WITH(parse_dtype("float64"), Catch::Contains("float32, bfloat16 or float16"));
}

TEST_CASE("generation_config.json adds its stop tokens - a malformed one is a clear error", "[models][config]") {
  TempDir t;
  const auto src = fs::path(test::fixture("hf/qwen2"));
  for (const char* f : {"config.json", "model.safetensors"}) fs::copy_file(src / f, t.path / f);
  write_file(t.path / "generation_config.json", R"({"eos_token_id": [2, 7], "bos_token_id": 1})");
  auto model = load_model(t.path.string(), {});
  const auto& eos = model->config().eos_token_ids;
  CHECK(std::count(eos.begin(), eos.end(), 2) == 1);
  CHECK(std::count(eos.begin(), eos.end(), 7) == 1);
  write_file(t.path / "generation_config.json", "{oops");
  CHECK_THROWS_WITH(load_model(t.path.string(), {}), Catch::Contains("generation_config.json") &&
                                                         Catch::Contains("not valid JSON"));
}

// Inputs the fuzzers (scripts/fuzz.sh) found, kept as regressions: each is now a clear error.
TEST_CASE("config.json inputs found by fuzzing are clear errors", "[models][bad-input][fuzz]") {
  const fs::path dir = fs::path(RIPPLEKV_TEST_FIXTURES) / ".." / "fuzz" / "regressions" / "config_json";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    INFO(entry.path().string());
    CHECK_THROWS_AS(parse_hf_config_text(read_file(entry.path()), entry.path().string()), std::invalid_argument);
    ++checked;
  }
  CHECK(checked >= 1);
  // The first finding: "vocab_size": 28e56, a float far beyond int64 (undefined behaviour before).
  CHECK_THROWS_WITH(parse_hf_config_text(read_file(dir / "float_beyond_int64.json"), "c.json"),
                    Catch::Contains("\"vocab_size\" has the wrong type: it must be an integer"));
  // Integral floats are still read (some exporters write 4096.0).
  CHECK(parse_hf_config_text(R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": 256.0,
      "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
      "intermediate_size": 96, "max_position_embeddings": 512, "rms_norm_eps": 1e-5})", "c.json").vocab_size == 256);
}
