// Calibration sets: the MiniLongBench layout (formatted prompts keyed "0".."N") read in key
// order beside the other formats, and its bad input named.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/ripple/calibration.h"
#include "test_paths.h"
#include "test_support.h"

using namespace ripplekv;
namespace fs = std::filesystem;

namespace {

std::string write_temp(const std::string& name, const std::string& content) {
  static const auto dir = test::scratch_dir("calibration", "texts");  // one per process, removed at exit
  const auto path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

}  // namespace

TEST_CASE("Calibration: a MiniLongBench file gives its formatted prompts in key order", "[core][ripple][calibration]") {
  const auto path = test::shared_data("longbench/mini/MiniLongBench_lcc.json");
  const auto set = read_calibration(path);
  CHECK(set.format == "minilongbench");
  // The file itself, read independently: every record's origin_prompt, keys taken as numbers.
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in);
  REQUIRE(set.texts.size() == j.size());
  REQUIRE(j.size() > 10);
  for (std::size_t i = 0; i < j.size(); ++i) {
    CHECK(set.texts[i] == j.at(std::to_string(i)).at("origin_prompt").get<std::string>());
  }
  CHECK(set.texts.front().rfind("Please complete the code given below.", 0) == 0);
  // Explicit --texts-format minilongbench reads the same.
  CHECK(read_calibration(path, "minilongbench").texts == set.texts);

  // Numeric, not lexical, key order ("10" after "2"); blank prompts dropped; a string "text"
  // among the values does not make it JSON lines.
  const auto small = write_temp("order.json", R"({"10": {"origin_prompt": "ten"}, "2": {"origin_prompt": "two"},
      "0": {"origin_prompt": "zero", "gold": ["text"]}, "1": {"origin_prompt": "  "}})");
  const auto order = read_calibration(small);
  CHECK(order.format == "minilongbench");
  CHECK(order.texts == std::vector<std::string>{"zero", "two", "ten"});

  // Records that mention origin_prompt in JSON-lines layout keep their old readings: the text
  // field's, LongBench's context, or the error naming --text-field.
  const auto jsonl = write_temp("field.json", "{\"text\": \"a\", \"origin_prompt\": \"b\"}\n");
  CHECK(read_calibration(jsonl).format == "jsonl");
  CHECK(read_calibration(jsonl).texts == std::vector<std::string>{"a"});
  const auto lines = write_temp("lines.json", "{\"context\": \"c1\", \"origin_prompt\": \"p1\"}\n"
                                              "{\"context\": \"c2\", \"origin_prompt\": \"p2\"}\n");
  CHECK(read_calibration(lines).format == "longbench");
  CHECK(read_calibration(lines).texts == std::vector<std::string>{"c1", "c2"});
  const auto other_field = write_temp("other.json", "{\"body\": \"a\", \"origin_prompt\": \"b\"}\n");
  CHECK_THROWS_WITH(read_calibration(other_field), Catch::Contains("no string field \"text\" (choose it with --text-field)"));
}

TEST_CASE("Calibration: a bad MiniLongBench file is an error naming the file and the record",
          "[core][ripple][calibration][bad-input]") {
  using Catch::Contains;
  // Picked by auto (the layout), a record without its prompt names the record and the way out.
  const auto no_prompt = write_temp("no_prompt.json", R"({"0": {"origin_prompt": "a"}, "1": {"gold": ["b"]}})");
  CHECK_THROWS_WITH(read_calibration(no_prompt), Contains(no_prompt) && Contains("record \"1\"") &&
                                                     Contains("origin_prompt") && Contains("--texts-format"));
  const auto bad_key = write_temp("bad_key.json", R"({"first": {"origin_prompt": "a"}})");
  CHECK_THROWS_WITH(read_calibration(bad_key, "minilongbench"),
                    Contains("record key \"first\" is not a record number") && Contains("--calibration-format"));
  const auto zero = write_temp("zero.json", R"({"01": {"origin_prompt": "a"}, "1": {"origin_prompt": "b"}})");
  CHECK_THROWS_WITH(read_calibration(zero, "minilongbench"), Contains("record key \"01\" is not a record number"));
  const auto not_object = write_temp("array.json", R"([{"origin_prompt": "a"}])");
  CHECK_THROWS_WITH(read_calibration(not_object, "minilongbench"), Contains("one JSON object"));
  const auto broken = write_temp("broken.json", R"({"0": {"origin_prompt": "a"})");
  CHECK_THROWS_WITH(read_calibration(broken, "minilongbench"), Contains(broken) && Contains("not valid JSON"));
  const auto empty = write_temp("empty.json", R"({"0": {"origin_prompt": " "}})");
  CHECK_THROWS_WITH(read_calibration(empty), Contains("no non-empty text") && Contains("minilongbench"));
  CHECK_THROWS_WITH(read_calibration(empty, "csv"), Contains("minilongbench"));
}
