#include <catch2/catch.hpp>

#include <fstream>

#include "eval/longbench_data.h"
#include "eval/longbench_predictions.h"
#include "../eval_test_paths.h"

using namespace ripplekv::eval;

namespace {
void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}
const char* kGoodLine =
    R"({"input": "q?", "context": "ctx", "answers": ["a"], "length": 12, "dataset": "qasper", )"
    R"("language": "en", "all_classes": null, "_id": "id1"})";
}  // namespace

TEST_CASE("official jsonl: raw/multi_news.jsonl (CRLF lines)", "[eval][data]") {
  const auto samples = load_longbench_jsonl(test::longbench_data_dir() / "raw" / "multi_news.jsonl");
  REQUIRE(samples.size() == 200);
  CHECK(samples[0].dataset == "multi_news");
  CHECK(samples[0].language == "en");
  CHECK(samples[0].id == "e45abfcb82a3c862c0f772e6f461866839955c11ea2f46a8");
  CHECK(samples[0].length == 2099);
  CHECK(samples[0].input.empty());
  CHECK(samples[0].context.rfind("Passage 1:\n", 0) == 0);
  CHECK_FALSE(samples[0].all_classes.has_value());
  CHECK(samples[0].answers.size() == 1);
  const auto prompt = prompt_for(samples[0], find_longbench_task("multi_news"));
  CHECK(prompt.rfind("You are given several news passages.", 0) == 0);
  CHECK(prompt.find(samples[0].context) != std::string::npos);
}

TEST_CASE("MiniLongBench json: all 21 task files load", "[eval][data]") {
  std::size_t total = 0;
  for (const auto& task : longbench_tasks()) {
    INFO("task " << task.name);
    const auto path = test::longbench_data_dir() / "mini" /
                      ("MiniLongBench_" + std::string(task.name) + ".json");
    const auto samples = load_longbench_samples(path);
    REQUIRE_FALSE(samples.empty());
    total += samples.size();
    CHECK(samples[0].id == "0");
    CHECK(samples[0].dataset == task.name);
    CHECK(samples[0].formatted_prompt.has_value());
    CHECK(samples[0].reference_prediction.has_value());
    CHECK_FALSE(samples[0].answers.empty());
    CHECK(samples[0].all_classes.has_value() == (task.name == "trec" || task.name == "lsht"));
    CHECK(prompt_for(samples[0], task) == *samples[0].formatted_prompt);
    if (samples.size() > 10) CHECK(samples[10].id == "10");  // numeric, not lexicographic, order
  }
  CHECK(total > 200);
}

TEST_CASE("malformed lines: error with file and line, or skip with a warning", "[eval][data]") {
  const auto dir = test::scratch_dir("data");
  const auto path = dir / "qasper.jsonl";
  write_file(path, std::string(kGoodLine) + "\n\n{not json}\n" + kGoodLine + "\n" +
                       R"({"input": "q", "context": "c"})" + "\n");
  try {
    load_longbench_jsonl(path);
    FAIL("expected an error");
  } catch (const BadRecordError& e) {
    // The library names no option of its callers (`longbench --on-bad-line skip` adds its own).
    const std::string msg = e.what();
    CHECK(msg.find("qasper.jsonl:3") != std::string::npos);
    CHECK(msg.find("fix or remove the line") != std::string::npos);
  }
  std::vector<std::string> warnings;
  SampleReadOptions options;
  options.skip_malformed_lines = true;
  options.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const auto samples = load_longbench_jsonl(path, options);
  CHECK(samples.size() == 2);
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0].find("qasper.jsonl:3") != std::string::npos);
  CHECK(warnings[1].find("qasper.jsonl:5") != std::string::npos);
  CHECK(warnings[1].find("\"answers\"") != std::string::npos);  // names the missing key
}

TEST_CASE("missing files and wrong layouts give clear errors", "[eval][data]") {
  const auto dir = test::scratch_dir("data_missing");
  try {
    load_longbench_jsonl(dir / "nope.jsonl");
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("nope.jsonl: no such file") != std::string::npos);
  }
  CHECK_THROWS_AS(load_minilongbench_json(dir / "MiniLongBench_trec.json"), std::runtime_error);
  CHECK_THROWS_AS(load_longbench_samples(dir / "x.csv"), std::invalid_argument);
  write_file(dir / "MiniLongBench_nosuchtask.json", "{}");
  CHECK_THROWS_AS(load_minilongbench_json(dir / "MiniLongBench_nosuchtask.json"),
                  std::invalid_argument);
  write_file(dir / "MiniLongBench_trec.json", "{\n  \"0\": {\n  oops\n}");
  try {
    load_minilongbench_json(dir / "MiniLongBench_trec.json");
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("MiniLongBench_trec.json:3") != std::string::npos);
  }
}

TEST_CASE("prediction files round trip", "[eval][data]") {
  const auto dir = test::scratch_dir("predictions");
  PredictionRecord a{"Paris\n", {"Paris", "paris"}, std::nullopt, 123, 0};
  PredictionRecord b{"x", {"y"}, std::vector<std::string>{"A", "B"}, std::nullopt, 0};
  write_file(dir / "t.jsonl", prediction_to_json_line(a) + "\n" + prediction_to_json_line(b) + "\n");
  const auto records = load_predictions_jsonl(dir / "t.jsonl");
  REQUIRE(records.size() == 2);
  CHECK(records[0].pred == "Paris\n");
  CHECK(records[0].answers == a.answers);
  CHECK(records[0].length == 123);
  CHECK_FALSE(records[0].all_classes.has_value());
  CHECK(records[1].all_classes == b.all_classes);
  CHECK(records[1].line == 2);
}
