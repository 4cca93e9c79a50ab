// tokenizer.json parity with HF `tokenizers`, id for id, over 2,000+ texts per tokenizer:
// slices of every LongBench mini context (English, Chinese, code), the multi_news file and the
// haystack essays, plus ~250 edge cases (digit runs, emoji, combining marks NFC changes, CRLF,
// tabs, whitespace runs, special tokens inside text). Fixtures: scripts/make_real_tokenizer_fixtures.py
// (slices stored by reference into ../shared, compared through FNV-1a hashes of ids and decodes).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>

#include "models/tokenizer/tokenizer.h"
#include "models/tokenizer/utf8.h"
#include "test_paths.h"

using namespace ripplekv;
using nlohmann::json;

namespace {

json read_json_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  return json::parse(in);
}

std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string fnv_hex(const void* data, std::size_t bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string ids_fnv(const TokenIds& ids) {
  std::vector<unsigned char> bytes;
  for (int id : ids) {
    const auto u = static_cast<uint32_t>(id);
    for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<unsigned char>(u >> (8 * b)));
  }
  return fnv_hex(bytes.data(), bytes.size());
}

// The source texts slices refer to, read once: (file, line or key, field) -> UTF-8 text.
class SliceSource {
 public:
  std::string text(const json& s) {
    const auto file = s["file"].get<std::string>();
    const std::string shared_root = std::string(RIPPLEKV_SHARED_DATA) + "/..";
    std::string key = file;
    if (!s["line"].is_null()) key += "#" + std::to_string(s["line"].get<int>());
    if (s.contains("key") && !s["key"].is_null()) key += "#" + s["key"].get<std::string>();
    if (!s["field"].is_null()) key += "#" + s["field"].get<std::string>();
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, load(shared_root + "/" + file, s)).first;
    const auto& cps = it->second;
    const auto start = s["start"].get<std::size_t>(), length = s["length"].get<std::size_t>();
    REQUIRE(start + length <= cps.size());
    std::string out;
    for (std::size_t i = start; i < start + length; ++i) bpe::append_utf8(cps[i], out);
    return out;
  }

 private:
  std::u32string load(const std::string& path, const json& s) {
    std::string utf8;
    if (!s["line"].is_null()) {  // JSON lines
      std::ifstream in(path, std::ios::binary);
      REQUIRE(in);
      std::string line;
      for (int i = 0; i <= s["line"].get<int>(); ++i) REQUIRE(std::getline(in, line));
      utf8 = json::parse(line)[s["field"].get<std::string>()].get<std::string>();
    } else if (s.contains("key") && !s["key"].is_null()) {  // a JSON object of records
      auto& doc = docs_[path];
      if (doc.is_null()) doc = read_json_file(path);
      utf8 = doc[s["key"].get<std::string>()][s["field"].get<std::string>()].get<std::string>();
    } else {
      utf8 = read_text_file(path);
    }
    std::u32string cps;
    for (const auto& cp : bpe::decode_utf8(utf8)) cps.push_back(cp.cp);
    return cps;
  }
  std::map<std::string, std::u32string> cache_;
  std::map<std::string, json> docs_;
};

void check_parity(const std::string& tokenizer_path, const std::string& fixture_path) {
  const Tokenizer tok(tokenizer_path);
  const json ref = read_json_file(fixture_path);
  SliceSource sources;
  std::size_t checked = 0, ids_total = 0, mismatched = 0;
  for (const auto& s : ref["slices"]) {
    const auto text = sources.text(s);
    const auto ids = tok.encode(text, false);
    const bool ok = ids_fnv(ids) == s["ids_fnv"].get<std::string>() && ids.size() == s["n_ids"].get<std::size_t>();
    if (!ok && ++mismatched <= 5) {
      INFO(tokenizer_path << ": slice " << s.dump() << " text " << json(text).dump());
      CHECK(ids.size() == s["n_ids"].get<std::size_t>());
      CHECK(ids_fnv(ids) == s["ids_fnv"].get<std::string>());
    }
    const auto decoded = tok.decode(ids);
    if (fnv_hex(decoded.data(), decoded.size()) != s["decode_fnv"].get<std::string>() && ++mismatched <= 5) {
      INFO(tokenizer_path << ": decode of slice " << s.dump());
      CHECK(fnv_hex(decoded.data(), decoded.size()) == s["decode_fnv"].get<std::string>());
    }
    ++checked;
    ids_total += ids.size();
  }
  for (const auto& c : ref["inline"]) {
    const auto text = c["text"].get<std::string>();
    INFO(tokenizer_path << ": " << json(text).dump());
    const auto ids = tok.encode(text, false);
    const auto want = c["ids"].get<TokenIds>();
    if (ids != want) ++mismatched;
    CHECK(ids == want);
    CHECK(tok.decode(want) == c["decoded"].get<std::string>());
    ++checked;
    ids_total += ids.size();
  }
  INFO(tokenizer_path << ": " << checked << " texts, " << ids_total << " ids");
  CHECK(mismatched == 0);
  CHECK(checked == ref["n_cases"].get<std::size_t>());
  CHECK(checked >= 2000);
}

}  // namespace

TEST_CASE("Tokenizer parity: SmolLM2-135M-Instruct tokenizer.json equals HF tokenizers on 2,000+ texts",
          "[models][tokenizer][real]") {
  const auto dir = test::real_model("smollm2-135m-instruct");
  check_parity(dir + "/tokenizer.json", test::fixture("real/smollm2-135m-instruct/tokenizer_parity.json"));
}

TEST_CASE("Tokenizer parity: Qwen2.5-Coder-1.5B-Instruct tokenizer.json equals HF tokenizers on 2,000+ texts",
          "[models][tokenizer][real][long]") {
  const auto dir = test::real_model("qwen2.5-coder-1.5b-instruct");
  check_parity(dir + "/tokenizer.json", test::fixture("real/qwen2.5-coder-1.5b-instruct/tokenizer_parity.json"));
}

TEST_CASE("Tokenizer parity: Llama-3- and Qwen2-configured trained tokenizers on 2,000+ texts",
          "[models][tokenizer][bpe]") {
  for (const char* name : {"llama3", "qwen2"}) {
    DYNAMIC_SECTION(name) {
      check_parity(test::fixture(std::string("bpe/") + name + "/tokenizer.json"),
                   test::fixture(std::string("bpe/") + name + "/tokenizer_parity.json"));
    }
  }
}
