// Every pair, sample and aggregate in tests/fixtures/metrics/metric_parity.jsonl
// (written by scripts/make_metric_fixtures.py with the official rouge==1.0.1,
// fuzzywuzzy==0.18.0 + python-Levenshtein and numpy) must come out bit-identical:
// no tolerance, because the metrics are pure integer counting followed by the same
// IEEE double operations in the same order as the Python code.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval/jsonl.h"
#include "eval/metrics.h"
#include "../eval_test_paths.h"

using namespace ripplekv::eval;

namespace {

struct Fixture {
  std::map<std::string, std::vector<std::string>> class_sets;
  std::vector<nlohmann::json> rows;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    for_each_jsonl_record(test::fixtures_dir() / "metrics" / "metric_parity.jsonl", {},
                          [&](const nlohmann::json& j, std::size_t) {
                            if (j.at("kind") == "class_sets") {
                              for (const auto& [name, list] : j.at("sets").items()) {
                                out.class_sets[name] = list.get<std::vector<std::string>>();
                              }
                            } else {
                              out.rows.push_back(j);
                            }
                          });
    return out;
  }();
  return f;
}

double score_fixture_pair(const std::string& metric, const std::string& pred, const std::string& gt,
                          const std::vector<std::string>* classes) {
  if (metric == "qa_f1") return qa_f1_score(pred, gt);
  if (metric == "rouge") return rouge_score(pred, gt);
  if (metric == "classification") return classification_score(pred, gt, *classes);
  if (metric == "count") return count_score(pred, gt);
  if (metric == "retrieval") return retrieval_score(pred, gt);
  if (metric == "retrieval_zh") return retrieval_zh_score(pred, gt);
  if (metric == "code_sim") return code_sim_score(pred, gt);
  throw std::invalid_argument("fixture: unknown metric " + metric);
}

// Exact comparison that also treats NaN == NaN (the empty LongBench-E bucket).
bool same_double(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

TEST_CASE("metric parity with the official Python packages: every pair is bit-identical",
          "[eval][metrics][parity]") {
  const auto& f = fixture();
  std::map<std::string, int> checked, mismatched;
  std::string first_failures;
  for (const auto& row : f.rows) {
    if (row.at("kind") != "pair") continue;
    const auto metric = row.at("metric").get<std::string>();
    const auto pred = row.at("pred").get<std::string>();
    const auto gt = row.at("gt").get<std::string>();
    const std::vector<std::string>* classes =
        row.contains("classes") ? &f.class_sets.at(row.at("classes").get<std::string>()) : nullptr;
    const double expected = row.at("score").get<double>();
    const double got = score_fixture_pair(metric, pred, gt, classes);
    ++checked[metric];
    bool ok = got == expected;
    if (metric == "rouge") {
      const auto status = rouge_l_summary_level(pred, gt).status;
      const std::string error = row.value("rouge_error", "");
      const bool status_ok = (error.empty() && status == RougeStatus::kOk) ||
                             (error == "ValueError" && (status == RougeStatus::kEmptyHypothesis ||
                                                        status == RougeStatus::kEmptyReference)) ||
                             (error == "RecursionError" && status == RougeStatus::kRecursionLimit);
      ok = ok && status_ok;
    }
    if (!ok) {
      ++mismatched[metric];
      if (first_failures.size() < 4000) {
        first_failures += fmt::format("{}: pred={} gt={} expected={:.17g} got={:.17g}\n", metric,
                                      nlohmann::json(pred).dump(), nlohmann::json(gt).dump(),
                                      expected, got);
      }
    }
  }
  INFO(first_failures);
  for (const auto& [metric, n] : checked) {
    INFO(metric << ": " << n << " pairs checked");
    CHECK(mismatched[metric] == 0);
  }
  CHECK(checked.size() == 7);
  CHECK(checked["qa_f1"] > 1000);
  CHECK(checked["rouge"] > 500);
  CHECK(checked["code_sim"] > 400);
}

TEST_CASE("metric parity: whole samples (first-line cut, max over answers)",
          "[eval][metrics][parity]") {
  const auto& f = fixture();
  int n = 0;
  for (const auto& row : f.rows) {
    if (row.at("kind") != "sample") continue;
    const auto& task = find_longbench_task(row.at("task").get<std::string>());
    const std::vector<std::string>* classes =
        row.contains("classes") ? &f.class_sets.at(row.at("classes").get<std::string>()) : nullptr;
    const double got = score_sample(task, row.at("pred").get<std::string>(),
                                    row.at("answers").get<std::vector<std::string>>(), classes);
    INFO("task " << task.name << " pred " << row.at("pred").dump());
    CHECK(got == row.at("score").get<double>());
    ++n;
  }
  CHECK(n > 50);
}

TEST_CASE("metric parity: task scores (Python round) and LongBench-E buckets (numpy)",
          "[eval][metrics][parity]") {
  const auto& f = fixture();
  int n = 0;
  for (const auto& row : f.rows) {
    if (row.at("kind") != "aggregate") continue;
    const auto scores = row.at("scores").get<std::vector<double>>();
    const auto lengths = row.at("lengths").get<std::vector<long long>>();
    CHECK(task_score(scores) == row.at("score").get<double>());
    const auto b = task_score_by_length(scores, lengths);
    auto expected = [&](const char* key) {
      const auto& v = row.at("buckets").at(key);
      return v.is_null() ? NAN : v.get<double>();
    };
    CHECK(same_double(b.k0_4k, expected("0-4k")));
    CHECK(same_double(b.k4_8k, expected("4-8k")));
    CHECK(same_double(b.k8k_plus, expected("8k+")));
    ++n;
  }
  CHECK(n >= 40);
}
