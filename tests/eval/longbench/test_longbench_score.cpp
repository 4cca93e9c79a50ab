#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval/longbench_score.h"
#include "eval/python_numeric.h"
#include "eval/sample_scores.h"
#include "../eval_test_paths.h"

using namespace ripplekv::eval;

namespace {
const std::vector<TaskResult>& reference_results() {
  static const std::vector<TaskResult> results =
      score_predictions_dir(test::reference_predictions_dir());
  return results;
}
}  // namespace

TEST_CASE("reference predictions reproduce result.json to the last digit", "[eval][score]") {
  const auto expected = nlohmann::json::parse(
      test::read_text(test::reference_predictions_dir() / "result.json"));
  const auto& results = reference_results();
  REQUIRE(results.size() == 16);
  REQUIRE(expected.size() == 16);
  for (const auto& r : results) {
    INFO("task " << r.task);
    REQUIRE(expected.contains(r.task));
    CHECK(r.score == expected.at(r.task).get<double>());
  }
  // Written the way json.dump writes it, values compare equal after parsing.
  const auto written = nlohmann::json::parse(result_json(results, false));
  CHECK(written == expected);
}

TEST_CASE("reference predictions reproduce list_result.json per sample", "[eval][score]") {
  const auto expected = nlohmann::json::parse(
      test::read_text(test::reference_predictions_dir() / "list_result.json"));
  const auto& results = reference_results();
  for (const auto& r : results) {
    INFO("task " << r.task);
    const auto want = expected.at(r.task).get<std::vector<double>>();
    REQUIRE(want.size() == r.sample_scores.size());
    int mismatches = 0;
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (want[i] != r.sample_scores[i]) ++mismatches;
    }
    CHECK(mismatches == 0);
  }
  CHECK(nlohmann::json::parse(list_result_json(results)) == expected);
}

TEST_CASE("LongBench-E scoring of the reference predictions", "[eval][score]") {
  ScoreOptions options;
  options.longbench_e = true;
  const auto results = score_predictions_dir(test::reference_predictions_dir(), options);
  REQUIRE(results.size() == 16);
  const auto& plain = reference_results();
  for (std::size_t i = 0; i < results.size(); ++i) {
    REQUIRE(results[i].buckets.has_value());
    CHECK(results[i].sample_scores == plain[i].sample_scores);
  }
  // An empty bucket is NaN, which json.dump writes as the bare word NaN (not
  // strict JSON); map it to null to read the file back here.
  std::string text = result_json(results, true);
  bool has_nan = false;
  for (const auto& r : results) {
    has_nan = has_nan || std::isnan(r.buckets->k0_4k) || std::isnan(r.buckets->k4_8k) ||
              std::isnan(r.buckets->k8k_plus);
  }
  CHECK((text.find(": NaN") != std::string::npos) == has_nan);
  for (std::size_t pos; (pos = text.find(": NaN")) != std::string::npos;) {
    text.replace(pos, 5, ": null");
  }
  const auto doc = nlohmann::json::parse(text);
  REQUIRE(doc.size() == 16);
  for (const auto& r : results) {
    INFO("task " << r.task);
    const auto& b = doc.at(r.task);
    CHECK(b.size() == 3);
    if (!std::isnan(r.buckets->k0_4k)) CHECK(b.at("0-4k").get<double>() == r.buckets->k0_4k);
    if (!std::isnan(r.buckets->k8k_plus)) CHECK(b.at("8k+").get<double>() == r.buckets->k8k_plus);
  }
}

TEST_CASE("tables and result files", "[eval][score]") {
  RunScores run{"fullkv", reference_results()};
  const auto avg = average_score(run.results);
  REQUIRE(avg.has_value());
  double total = 0.0;
  for (const auto& r : run.results) total += r.score;
  CHECK(*avg == python_round(total / 16, 2));
  const std::string md = results_markdown({run});
  CHECK(md.rfind("| run | narrativeqa | qasper |", 0) == 0);
  CHECK(md.find("| fullkv | 26.63 | 32.99 |") != std::string::npos);
  CHECK(md.find(fmt::format("| {:.2f} |", *avg)) != std::string::npos);
  const std::string csv = results_csv({run});
  CHECK(csv.rfind("run,narrativeqa,qasper,", 0) == 0);
  CHECK(csv.find("fullkv,26.63,32.99,") != std::string::npos);
  const auto dir = test::scratch_dir("score_out");
  const auto written = write_score_files(dir, run, false);
  CHECK(written.size() == 5);
  CHECK(nlohmann::json::parse(test::read_text(dir / "result.json")) ==
        nlohmann::json::parse(test::read_text(test::reference_predictions_dir() / "result.json")));
  // Per-sample scores (x100) with each sample's id, for confidence intervals: their mean is
  // the task score before rounding; pred.py's files have no "_id", so ids are line numbers.
  const auto samples = read_sample_scores(dir / "sample_scores.json");
  REQUIRE(samples.size() == run.results.size());
  for (const auto& r : run.results) {
    const auto& s = samples.at(r.task);
    REQUIRE(s.scores.size() == r.sample_scores.size());
    CHECK(s.ids.front() == "#1");
    CHECK(s.ids.back() == "#" + std::to_string(s.ids.size()));
    double sum = 0;
    for (double v : s.scores) sum += v;
    CHECK(python_round(sum / static_cast<double>(s.scores.size()), 2) == Approx(r.score).margin(0.006));
  }
}

TEST_CASE("sample_scores.json: ids from \"_id\" and bad files named", "[eval][score]") {
  const auto dir = test::scratch_dir("sample_scores");
  {
    std::ofstream(dir / "trec.jsonl") << R"({"pred": "Location", "answers": ["Location"], "all_classes": ["Location", "Number"], "_id": "a7"})"
                                       << "\n"
                                       << R"({"pred": "Number", "answers": ["Location"], "all_classes": ["Location", "Number"], "_id": "b2"})"
                                       << "\n";
  }
  const auto results = score_predictions_dir(dir);
  write_score_files(dir, RunScores{"x", results}, false);
  const auto s = read_sample_scores(dir / "sample_scores.json").at("trec");
  CHECK(s.ids == std::vector<std::string>{"a7", "b2"});
  CHECK(s.scores == std::vector<double>{100.0, 0.0});
  const auto bad = [&](const std::string& text) {
    std::ofstream(dir / "bad.json", std::ios::trunc) << text;
    try {
      read_sample_scores(dir / "bad.json");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(bad("{"), Catch::Contains("bad.json: not valid JSON"));
  CHECK_THAT(bad(R"({"format": "x"})"), Catch::Contains("not a ripplekv sample-scores file"));
  CHECK_THAT(bad(R"({"format": "ripplekv-sample-scores", "version": 1, "columns": {"t": {"ids": ["a"], "scores": []}}})"),
             Catch::Contains("1 ids and 0 scores"));
  CHECK_THAT(bad(R"({"format": "ripplekv-sample-scores", "version": 1, "columns": {"t": {"ids": ["a", "a"], "scores": [1, 2]}}})"),
             Catch::Contains("\"a\" appears twice"));
  CHECK_THAT(bad(R"({"format": "ripplekv-sample-scores", "version": 1, "columns": {"t": {"ids": ["a"], "scores": ["x"]}}})"),
             Catch::Contains("not a number"));
}

TEST_CASE("scoring errors name the file and the fix", "[eval][score]") {
  const auto dir = test::scratch_dir("score_errors");
  {
    std::ofstream(dir / "qasperr.jsonl") << R"({"pred": "x", "answers": ["x"]})" << "\n";
  }
  try {
    score_predictions_dir(dir);
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("qasperr.jsonl") != std::string::npos);
    CHECK(msg.find("valid tasks are") != std::string::npos);
  }
  std::filesystem::remove(dir / "qasperr.jsonl");
  { std::ofstream(dir / "vcsum.jsonl") << R"({"pred": "x", "answers": ["x"]})" << "\n"; }
  CHECK_THROWS_AS(score_predictions_dir(dir), std::runtime_error);
  ScoreOptions skip;
  skip.skip_unsupported_tasks = true;
  skip.read.on_warning = [](const std::string&) {};
  CHECK(score_predictions_dir(dir, skip).empty());
  std::filesystem::remove(dir / "vcsum.jsonl");
  { std::ofstream(dir / "trec.jsonl") << R"({"pred": "x", "answers": ["x"], "all_classes": null})" << "\n"; }
  try {
    score_predictions_dir(dir);
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("trec.jsonl:1") != std::string::npos);
    CHECK(std::string(e.what()).find("all_classes") != std::string::npos);
  }
  std::filesystem::remove(dir / "trec.jsonl");
  { std::ofstream(dir / "qasper.jsonl") << R"({"pred": "x", "answers": ["x"]})" << "\n"; }
  ScoreOptions e;
  e.longbench_e = true;
  try {
    score_predictions_dir(dir, e);
    FAIL("expected an error");
  } catch (const std::runtime_error& err) {
    CHECK(std::string(err.what()).find("\"length\"") != std::string::npos);
  }
  CHECK_THROWS_AS(score_predictions_dir(dir / "missing"), std::runtime_error);
}
