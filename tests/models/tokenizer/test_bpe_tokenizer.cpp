// The byte-level BPE tokenizer (tokenizer.json) gives exactly the ids and decodes of Hugging Face
// `tokenizers` for two small tokenizers trained and configured like Llama-3's and Qwen2's
// (fixtures from scripts/make_bpe_fixtures.py), and rejects what it does not implement.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>

#include "models/tokenizer/bpe_model.h"
#include "models/tokenizer/normalizer.h"
#include "models/tokenizer/pre_tokenizer.h"
#include "models/tokenizer/tokenizer.h"
#include "test_paths.h"
#include "test_support.h"

using namespace ripplekv;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

json read_fixture(const std::string& rel) {
  std::ifstream in(test::fixture(rel));
  REQUIRE(in);
  return json::parse(in);
}

void check_against_reference(const std::string& name) {
  const auto ref = read_fixture("bpe/" + name + "/reference.json");
  const auto path = find_tokenizer(test::fixture("bpe/" + name), "", 0);
  CHECK(fs::path(path).filename() == "tokenizer.json");
  Tokenizer tok(path);
  CHECK(tok.path() == path);
  CHECK(tok.vocab_size() == ref["vocab_size"].get<int>());
  CHECK(tok.bos_id() == ref["special"]["bos"].get<int>());
  CHECK(tok.eos_id() == ref["special"]["eos"].get<int>());
  CHECK(tok.pad_id() == ref["special"]["pad"].get<int>());
  CHECK(tok.unk_id() == -1);
  for (const auto& [piece, id] : ref["special_tokens"].items()) {
    CHECK(tok.piece_to_id(piece) == id.get<int>());
    CHECK(tok.id_to_piece(id.get<int>()) == piece);
  }
  CHECK(tok.piece_to_id("<|no_such_token|>") == -1);

  REQUIRE(ref["cases"].size() >= 60);
  int multi_byte_cases = 0;
  for (const auto& c : ref["cases"]) {
    const auto text = c["text"].get<std::string>();
    INFO(name << ": " << json(text).dump());
    const auto ids = c["ids"].get<TokenIds>();
    CHECK(tok.encode(text, false) == ids);
    const auto with_bos = tok.encode(text, true);
    if (tok.bos_id() >= 0) {
      REQUIRE(with_bos.size() == ids.size() + 1);
      CHECK(with_bos.front() == tok.bos_id());
    } else {
      CHECK(with_bos == ids);
    }
    CHECK(tok.decode(ids) == c["decoded"].get<std::string>());
    REQUIRE(c["pieces"].size() == ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
      CHECK(tok.id_to_piece(ids[i]) == c["pieces"][i].get<std::string>());
      CHECK(tok.piece_to_id(c["pieces"][i].get<std::string>()) == ids[i]);
    }
    if (text.size() != json(text).dump().size() - 2) ++multi_byte_cases;
  }
  CHECK(multi_byte_cases >= 5);  // the fixture exercises non-ASCII text

  REQUIRE(ref["lossy_decodes"].size() >= 10);
  for (const auto& c : ref["lossy_decodes"]) {
    INFO(name << ": decode " << c["ids"].dump());
    CHECK(tok.decode(c["ids"].get<TokenIds>()) == c["decoded"].get<std::string>());
  }
}

// A scratch directory holding a tokenizer.json (and optionally tokenizer_config.json), removed
// when the process exits (test::scratch_dir).
struct ScratchTokenizer {
  fs::path dir;
  explicit ScratchTokenizer(const std::string& tag) : dir(test::scratch_dir("bpe", tag)) {}
  std::string write(const std::string& file, const std::string& text) const {
    std::ofstream(dir / file) << text;
    return (dir / file).string();
  }
};

json llama3_json() { return read_fixture("bpe/llama3/tokenizer.json"); }

}  // namespace

TEST_CASE("BPE tokenizer: Llama-3-style tokenizer.json matches HF tokenizers", "[models][tokenizer][bpe]") {
  check_against_reference("llama3");
}

TEST_CASE("BPE tokenizer: Qwen2-style tokenizer.json matches HF tokenizers", "[models][tokenizer][bpe]") {
  check_against_reference("qwen2");
}

TEST_CASE("BPE tokenizer: the Split regexes cut pre-tokens like Llama-3's and Qwen2's", "[models][tokenizer][bpe]") {
  const bpe::Regex llama3(llama3_json()["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"].get<std::string>());
  const bpe::Regex qwen2(
      read_fixture("bpe/qwen2/tokenizer.json")["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"].get<std::string>());
  using V = std::vector<std::string>;
  const auto cut = [](const bpe::Regex& re, const std::string& text) {
    V out;
    for (const auto& p : bpe::split_at({text, true}, re.find_all(text), bpe::SplitBehavior::kIsolated)) {
      out.push_back(p.text);
    }
    return out;
  };
  CHECK(cut(llama3, "1234567") == V{"123", "456", "7"});
  CHECK(cut(qwen2, "1234") == V{"1", "2", "3", "4"});
  CHECK(cut(llama3, "I'M here") == V{"I", "'M", " here"});
  CHECK(cut(llama3, "a  b\n\n c  ") == V{"a", " ", " b", "\n\n", " c", "  "});
  CHECK(cut(llama3, "x\r\n\r\ny") == V{"x", "\r\n\r\n", "y"});
  CHECK(cut(llama3, " ... ?!\n") == V{" ...", " ?!\n"});
  CHECK(cut(llama3, "长文本 ok") == V{"长文本", " ok"});
}

TEST_CASE("Pre-tokenizer split behaviors follow tokenizers' SplitDelimiterBehavior", "[models][tokenizer][bpe]") {
  using V = std::vector<std::string>;
  const bpe::Regex dash = bpe::Regex::literal("-");
  const auto cut = [&](const std::string& text, bpe::SplitBehavior b, bool invert = false) {
    V out;
    for (const auto& p : bpe::split_at({text, true}, dash.find_all(text), b, invert)) out.push_back(p.text);
    return out;
  };
  // The examples of tokenizers' own documentation of SplitDelimiterBehavior.
  const std::string text = "the-final--countdown";
  CHECK(cut(text, bpe::SplitBehavior::kRemoved) == V{"the", "final", "countdown"});
  CHECK(cut(text, bpe::SplitBehavior::kIsolated) == V{"the", "-", "final", "-", "-", "countdown"});
  CHECK(cut(text, bpe::SplitBehavior::kMergedWithPrevious) == V{"the-", "final-", "-", "countdown"});
  CHECK(cut(text, bpe::SplitBehavior::kMergedWithNext) == V{"the", "-final", "-", "-countdown"});
  CHECK(cut(text, bpe::SplitBehavior::kContiguous) == V{"the", "-", "final", "--", "countdown"});
  CHECK(cut(text, bpe::SplitBehavior::kRemoved, /*invert=*/true) == V{"-", "-", "-"});
  CHECK(cut("-a", bpe::SplitBehavior::kMergedWithPrevious) == V{"-", "a"});
  CHECK(cut("a-", bpe::SplitBehavior::kMergedWithNext) == V{"a", "-"});
  CHECK_THROWS_WITH(bpe::Regex("(unclosed"), Catch::Contains("does not compile"));
  CHECK(bpe::Regex::literal("a.b\\E(").find_all("xa.b\\E(axb").size() == 1);
}

TEST_CASE("Normalizers: Unicode forms through utf8proc", "[models][tokenizer][bpe]") {
  CHECK(bpe::unicode_normalize("cafe\xCC\x81", "NFC") == "caf\xC3\xA9");
  CHECK(bpe::unicode_normalize("caf\xC3\xA9", "NFD") == "cafe\xCC\x81");
  CHECK(bpe::unicode_normalize("\xEF\xAC\x81", "NFKC") == "fi");        // U+FB01 ligature
  CHECK(bpe::unicode_normalize("\xE2\x84\xAB", "NFC") == "\xC3\x85");  // Angstrom sign -> U+00C5
  CHECK_THROWS_WITH(bpe::unicode_normalize("x", "NFX"), Catch::Contains("NFX"));
}

TEST_CASE("BPE model: ignore_merges emits a whole pre-token found in the vocab", "[models][tokenizer][bpe]") {
  // The trained fixtures never reach a vocab entry the merges cannot build, so this one is
  // hand-made; the expected ids are what tokenizers 0.23 gives for the same vocab and merges.
  const std::unordered_map<std::string, int> vocab{{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"abc", 5}};
  const std::vector<std::pair<std::string, std::string>> merges{{"a", "b"}, {"b", "c"}};
  const auto ids = [](const bpe::BpeModel& m, const std::string& word) {
    std::vector<int> out;
    m.tokenize(word, out);
    return out;
  };
  bpe::BpeOptions ignore;
  ignore.ignore_merges = true;
  const bpe::BpeModel ignoring(vocab, merges, ignore);
  const bpe::BpeModel merging(vocab, merges);
  CHECK(ids(ignoring, "abc") == std::vector<int>{5});
  CHECK(ids(merging, "abc") == std::vector<int>{3, 2});
  CHECK(ids(ignoring, "abcabc") == std::vector<int>{3, 2, 3, 2});
  CHECK(ids(merging, "bcab") == std::vector<int>{4, 3});
  CHECK_THROWS_WITH(bpe::BpeModel(vocab, {{"c", "a"}}), Catch::Contains("\"ca\", which is not in the vocab"));
  // Unknown characters: byte fallback when every byte piece exists, else unk (fused if asked).
  auto with_bytes = vocab;
  with_bytes.emplace("<0xC3>", 6);
  with_bytes.emplace("<0xA9>", 7);
  with_bytes.emplace("<unk>", 8);
  bpe::BpeOptions fallback;
  fallback.byte_fallback = true;
  fallback.unk_id = 8;
  CHECK(ids(bpe::BpeModel(with_bytes, merges, fallback), "a\xC3\xA9" "b") == std::vector<int>{0, 6, 7, 1});
  CHECK(ids(bpe::BpeModel(with_bytes, merges, fallback), "a\xC3\xB1\xC3\xB1") == std::vector<int>{0, 8, 8});
  fallback.fuse_unk = true;
  CHECK(ids(bpe::BpeModel(with_bytes, merges, fallback), "a\xC3\xB1\xC3\xB1") == std::vector<int>{0, 8});
  CHECK_THROWS_WITH(ids(merging, "z"), Catch::Contains("not in the BPE vocab"));
}

TEST_CASE("BPE tokenizer: find_tokenizer prefers tokenizer.model, then tokenizer.json", "[models][tokenizer][bpe]") {
  ScratchTokenizer s("find");
  CHECK_THROWS_WITH(find_tokenizer(s.dir.string(), "", 0), Catch::Contains("tokenizer.json"));
  s.write("tokenizer.json", "{}");
  CHECK(find_tokenizer(s.dir.string(), "", 0) == (s.dir / "tokenizer.json").string());
  s.write("tokenizer.model", "x");
  CHECK(find_tokenizer(s.dir.string(), "", 0) == (s.dir / "tokenizer.model").string());
}

TEST_CASE("BPE tokenizer: malformed or unsupported tokenizer.json files are clear errors",
          "[models][tokenizer][bpe][bad-input]") {
  ScratchTokenizer s("bad");
  const auto with = [&](const std::function<void(json&)>& edit) {
    json j = llama3_json();
    edit(j);
    return s.write("tokenizer.json", j.dump());
  };
  CHECK_THROWS_WITH(Tokenizer(s.write("tokenizer.json", "{\"model\": {\"type\": \"BPE\",")),
                    Catch::Contains("tokenizer.json: not valid JSON"));
  CHECK_THROWS_WITH(Tokenizer(s.write("tokenizer.json", "{\"version\": \"1.0\"}")),
                    Catch::Contains("no \"model\" object"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["model"]["type"] = "WordPiece"; })),
                    Catch::Contains("model.type \"WordPiece\" is not supported"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["model"]["type"] = "Unigram"; })),
                    Catch::Contains("tokenizer.json") && Catch::Contains("Unigram"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["model"]["dropout"] = 0.1; })),
                    Catch::Contains("model.dropout"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["model"].erase("vocab"); })), Catch::Contains("model.vocab"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["model"]["merges"][0] = "a b c"; })),
                    Catch::Contains("model.merges[0]"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["model"]["merges"][0] = json::array({"zz", "qq"}); })),
                    Catch::Contains("not in the vocab"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["normalizer"] = {{"type", "BertNormalizer"}}; })),
                    Catch::Contains("normalizer \"BertNormalizer\" is not supported"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "(\\s+"; })),
                    Catch::Contains("pre_tokenizer.pretokenizers[0].pattern: regex") && Catch::Contains("does not compile"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["pre_tokenizer"] = {{"type", "BertPreTokenizer"}}; })),
                    Catch::Contains("pre_tokenizer \"BertPreTokenizer\" is not supported"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["pre_tokenizer"]["pretokenizers"][0]["behavior"] = "Sideways"; })),
                    Catch::Contains("pre_tokenizer.pretokenizers[0].behavior") && Catch::Contains("not a behavior"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["pre_tokenizer"]["pretokenizers"][1]["add_prefix_space"] = "yes"; })),
                    Catch::Contains("pre_tokenizer.pretokenizers[1].add_prefix_space"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["decoder"] = {{"type", "WordPiece"}}; })),
                    Catch::Contains("decoder \"WordPiece\" is not supported"));
  CHECK_THROWS_WITH(Tokenizer(with([](json& j) { j["added_tokens"][0]["lstrip"] = true; })),
                    Catch::Contains("lstrip"));

  // tokenizer_config.json naming a token the tokenizer lacks.
  s.write("tokenizer.json", llama3_json().dump());
  s.write("tokenizer_config.json", R"({"bos_token": "<s>"})");
  CHECK_THROWS_WITH(Tokenizer((s.dir / "tokenizer.json").string()),
                    Catch::Contains("tokenizer_config.json: bos_token \"<s>\" is not a token"));
  // Without tokenizer_config.json there is no BOS/EOS; add_bos adds nothing.
  fs::remove(s.dir / "tokenizer_config.json");
  Tokenizer bare((s.dir / "tokenizer.json").string());
  CHECK(bare.bos_id() == -1);
  CHECK(bare.eos_id() == -1);
  CHECK(bare.encode("hi", true) == bare.encode("hi", false));
  // add_bos_token false is honoured.
  s.write("tokenizer_config.json", R"({"bos_token": {"content": "<|begin_of_text|>"}, "add_bos_token": false})");
  Tokenizer no_bos((s.dir / "tokenizer.json").string());
  CHECK(no_bos.bos_id() == no_bos.piece_to_id("<|begin_of_text|>"));
  CHECK(no_bos.encode("hi", true) == no_bos.encode("hi", false));
}

TEST_CASE("BPE tokenizer: bad text and ids are clear errors", "[models][tokenizer][bpe][bad-input]") {
  Tokenizer llama3(test::fixture("bpe/llama3/tokenizer.json"));
  CHECK_THROWS_WITH(llama3.encode("ok \xC3(", false), Catch::Contains("not valid UTF-8 at byte 3"));
  CHECK_THROWS_WITH(llama3.decode({0, llama3.vocab_size()}), Catch::Contains("outside the vocabulary"));
  CHECK_THROWS_WITH(llama3.id_to_piece(-1), Catch::Contains("outside the vocabulary"));
  // Qwen2 normalizes to NFC: decomposed text encodes as its composed form; Llama-3 has no normalizer.
  Tokenizer qwen2(test::fixture("bpe/qwen2/tokenizer.json"));
  CHECK(qwen2.encode("cafe\xCC\x81", false) == qwen2.encode("caf\xC3\xA9", false));  // e + U+0301 vs U+00E9
  CHECK(llama3.encode("cafe\xCC\x81", false) != llama3.encode("caf\xC3\xA9", false));
}

// Inputs the fuzzers (scripts/fuzz.sh) found crashing, kept as regressions: each must now be a
// clear error, nothing worse.
TEST_CASE("tokenizer.json inputs found by fuzzing are clear errors", "[models][tokenizer][bad-input][fuzz]") {
  const fs::path dir = fs::path(RIPPLEKV_TEST_FIXTURES) / ".." / "fuzz" / "regressions" / "tokenizer_json";
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    INFO(entry.path().string());
    CHECK_THROWS_AS(Tokenizer(entry.path().string()), std::invalid_argument);
    ++checked;
  }
  CHECK(checked >= 1);
  // The first finding: an id of 92,222,222,200 (beyond int, and a table of that size).
  CHECK_THROWS_WITH(Tokenizer((dir / "huge_vocab_id.json").string()), Catch::Contains("is not an id"));
}
