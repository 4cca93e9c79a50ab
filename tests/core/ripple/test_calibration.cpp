// Calibration sets: the MiniLongBench layout (formatted prompts keyed "0".."N") read in key
// order beside the other formats, and its bad input named.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/ripple/calibration.h"
#include "test_paths.h"

using namespace ripplekv;
namespace fs = std::filesystem;

namespace {

std::string write_temp(const std::string& name, const std::string& content) {
  const auto path = (fs::temp_directory_path() / ("ripplekv_test_calibration_" + name)).string();
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

  // Numeric, not lexical, key order ("10" after "2"); blank prompts dropped.
  const auto small = write_temp("order.json", R"({"10": {"origin_prompt": "ten"}, "2": {"origin_prompt": "two"},
      "0": {"origin_prompt": "zero", "gold": ["x"]}, "1": {"origin_prompt": "  "}})");
  const auto order = read_calibration(small);
  CHECK(order.format == "minilongbench");
  CHECK(order.texts == std::vector<std::string>{"zero", "two", "ten"});
  fs::remove(small);

  // A .json of records with the text field stays jsonl even when a record mentions origin_prompt.
  const auto jsonl = write_temp("field.json", "{\"text\": \"a\", \"origin_prompt\": \"b\"}\n");
  CHECK(read_calibration(jsonl).format == "jsonl");
  CHECK(read_calibration(jsonl).texts == std::vector<std::string>{"a"});
  fs::remove(jsonl);
}

TEST_CASE("Calibration: a bad MiniLongBench file is an error naming the file and the record",
          "[core][ripple][calibration][bad-input]") {
  using Catch::Contains;
  const auto no_prompt = write_temp("no_prompt.json", R"({"0": {"origin_prompt": "a"}, "1": {"gold": ["b"]}})");
  CHECK_THROWS_WITH(read_calibration(no_prompt, "minilongbench"), Contains(no_prompt) && Contains("record \"1\"") &&
                                                                      Contains("origin_prompt"));
  const auto bad_key = write_temp("bad_key.json", R"({"first": {"origin_prompt": "a"}})");
  CHECK_THROWS_WITH(read_calibration(bad_key), Contains("record key \"first\" is not a number"));
  const auto not_object = write_temp("array.json", R"([{"origin_prompt": "a"}])");
  CHECK_THROWS_WITH(read_calibration(not_object, "minilongbench"), Contains("one JSON object"));
  const auto broken = write_temp("broken.json", R"({"0": {"origin_prompt": "a"})");
  CHECK_THROWS_WITH(read_calibration(broken, "minilongbench"), Contains(broken) && Contains("not valid JSON"));
  const auto empty = write_temp("empty.json", R"({"0": {"origin_prompt": " "}})");
  CHECK_THROWS_WITH(read_calibration(empty), Contains("no non-empty text") && Contains("minilongbench"));
  CHECK_THROWS_WITH(read_calibration(empty, "csv"), Contains("minilongbench"));
  for (const auto& p : {no_prompt, bad_key, not_object, broken, empty}) fs::remove(p);
}
