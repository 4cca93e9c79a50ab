// Bootstrap intervals (eval/experiments/bootstrap.h) against SciPy's scipy.stats.bootstrap
// (tests/fixtures/bootstrap/intervals.json, written by scripts/make_bootstrap_fixtures.py).
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "eval/experiments/bootstrap.h"
#include "test_paths.h"

using namespace ripplekv::experiments;
using Catch::Matchers::Contains;

namespace {
std::vector<double> doubles(const nlohmann::json& j) { return j.get<std::vector<double>>(); }
}  // namespace

TEST_CASE("Bootstrap intervals match SciPy's percentile bootstrap within Monte-Carlo error", "[eval][bootstrap]") {
  std::ifstream in(ripplekv::test::fixture("bootstrap/intervals.json"));
  REQUIRE(in);
  const auto fixture = nlohmann::json::parse(in);
  REQUIRE(fixture.at("cases").size() == 5);
  for (const auto& c : fixture.at("cases")) {
    INFO(c.at("name").get<std::string>());
    Interval got;
    if (c.at("kind") == "mean") {
      std::vector<std::vector<double>> groups;
      for (const auto& g : c.at("groups")) groups.push_back(doubles(g));
      got = bootstrap_mean_interval(groups);
    } else {
      got = bootstrap_paired_difference({doubles(c.at("a"))}, {doubles(c.at("b"))});
    }
    const double lo = c.at("lo"), hi = c.at("hi");
    // SciPy ran 100,000 resamples, we run 2,000: each end moves by about 1.5% of the width
    // (one standard error); discrete scores (0 / 100) move it in steps of up to 8%.
    const double tol = 0.1 * (hi - lo);
    CHECK(got.estimate == Approx(c.at("estimate").get<double>()).margin(1e-9));
    if (c.at("kind") == "mean") {  // the estimate is the statistic on the data, computed without resampling
      std::vector<std::vector<double>> groups;
      for (const auto& g : c.at("groups")) groups.push_back(doubles(g));
      CHECK(mean_of_task_means(groups) == Approx(c.at("estimate").get<double>()).margin(1e-9));
    }
    CHECK(got.lo == Approx(lo).margin(tol));
    CHECK(got.hi == Approx(hi).margin(tol));
    CHECK(got.lo <= got.estimate);
    CHECK(got.estimate <= got.hi);
  }
}

TEST_CASE("Bootstrap: degenerate data, ties, reproducibility and bad input", "[eval][bootstrap]") {
  // Constant scores: no uncertainty.
  const auto flat = bootstrap_mean_interval({{50, 50, 50}, {10, 10}});
  CHECK(flat.estimate == 30);
  CHECK(flat.lo == 30);
  CHECK(flat.hi == 30);
  // A method against itself: exactly zero, a tie.
  const std::vector<std::vector<double>> a = {{0, 100, 100, 0, 100}, {12.5, 80, 33}};
  const auto self = bootstrap_paired_difference(a, a);
  CHECK(self.estimate == 0);
  CHECK(self.lo == 0);
  CHECK(self.hi == 0);
  CHECK(self.contains_zero());
  // A method that is better on every sample: the whole interval is above zero.
  auto b = a;
  for (auto& g : b) {
    for (auto& v : g) v -= 5;
  }
  const auto better = bootstrap_paired_difference(a, b);
  CHECK(better.estimate == Approx(5));
  CHECK(better.lo == Approx(5));
  CHECK_FALSE(better.contains_zero());
  // The same seed gives the same interval; another seed another one; more resamples narrow
  // the Monte-Carlo error, not the interval.
  const std::vector<std::vector<double>> noisy = {{1.31, 7.1, 3.77, 9.2, 4.43, 4.9, 8.05, 2.2, 6.61, 5.15}};
  CHECK(bootstrap_mean_interval(noisy).lo == bootstrap_mean_interval(noisy).lo);
  BootstrapOptions other;
  other.seed = 3;
  CHECK(bootstrap_mean_interval(noisy, other).lo != bootstrap_mean_interval(noisy).lo);
  // A wider level gives a wider interval.
  BootstrapOptions wide;
  wide.level = 0.99;
  const auto i95 = bootstrap_mean_interval(noisy), i99 = bootstrap_mean_interval(noisy, wide);
  CHECK(i99.lo <= i95.lo);
  CHECK(i99.hi >= i95.hi);
  CHECK(i95.hi - i95.lo > 0);
  // Bad input names the problem.
  CHECK_THROWS_WITH(bootstrap_mean_interval({}), Contains("no tasks"));
  CHECK_THROWS_WITH(bootstrap_mean_interval({{1.0}, {}}), Contains("task 1 has no samples"));
  CHECK(mean_of_task_means({{50, 50, 50}, {10, 20}}) == 32.5);  // tasks weigh equally, not samples
  CHECK_THROWS_WITH(mean_of_task_means({}), Contains("no tasks"));
  CHECK_THROWS_WITH(mean_of_task_means({{1.0}, {}}), Contains("task 1 has no samples"));
  CHECK_THROWS_WITH(bootstrap_paired_difference({{1, 2}}, {{1, 2, 3}}), Contains("same samples"));
  BootstrapOptions bad;
  bad.level = 1.5;
  CHECK_THROWS_WITH(bootstrap_mean_interval(noisy, bad), Contains("level"));
  bad = {};
  bad.resamples = 0;
  CHECK_THROWS_WITH(bootstrap_mean_interval(noisy, bad), Contains("resamples"));
  CHECK(sorted_quantile({1, 2, 3, 4}, 0.5) == 2.5);
  CHECK(sorted_quantile({1, 2, 3, 4}, 0.0) == 1);
  CHECK(sorted_quantile({1, 2, 3, 4}, 1.0) == 4);
}
