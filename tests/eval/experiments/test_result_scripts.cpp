// The results scripts that size, pair and compare runs (scripts/results/run_pair.py,
// samples_needed.py, decode_agreement.py, allocation_agreement.py, evict_profile.py,
// profile_stability.py, fidelity_pair.py, fidelity32_h2o_pairs.py, profile_compare.py), run
// with the project's Python on hand-made run folders
// whose differences are known; and the device kit's rebuild of a real model's weights from its
// GGUF (scripts/device/gguf_weights.py) against the weights scripts/get_model.sh converted; and
// the shard, resume and table mechanics of the confirmatory runs (scripts/results/confirm_run.sh)
// with a stand-in for the program.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/ripple/sensitivity_profile.h"
#include "test_paths.h"
#include "test_support.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

using Columns = std::map<std::string, std::vector<double>>;  // column -> scores of ids "0", "1", ...

// A scored run folder as `ripplekv ruler` leaves it: config.json (what decides the prompts) and
// sample_scores.json.
void write_run(const fs::path& dir, int seed, const Columns& columns) {
  fs::create_directories(dir);
  nlohmann::json config = {{"run", {{"benchmark", "ruler"}, {"model", "m"}, {"data", "generated"}, {"seed", seed}}}};
  std::ofstream(dir / "config.json") << config.dump();
  nlohmann::json scores = {{"format", "ripplekv-sample-scores"}, {"version", 1}, {"columns", nlohmann::json::object()}};
  for (const auto& [name, values] : columns) {
    std::vector<std::string> ids;
    for (size_t i = 0; i < values.size(); ++i) ids.push_back(std::to_string(i));
    scores["columns"][name] = {{"ids", ids}, {"scores", values}};
  }
  std::ofstream(dir / "sample_scores.json") << scores.dump();
}

double sample_variance(const std::vector<double>& x) {
  double mean = 0;
  for (double v : x) mean += v / static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return ss / static_cast<double>(x.size() - 1);
}

// script: a path under scripts/results/, or under scripts/ where it holds a '/'.
ripplekv::test::CommandResult run_script(const std::string& script, const std::string& args) {
  const std::string python = std::string(RIPPLEKV_PYTHON_EXE).empty() ? "python3" : RIPPLEKV_PYTHON_EXE;
  const std::string dir = script.find('/') == std::string::npos ? "/scripts/results/" : "/scripts/";
  return ripplekv::test::run_command(python + " '" + RIPPLEKV_SOURCE_DIR + dir + script + "' " + args);
}

// A stand-in for `ripplekv allocate` at budget 5, written to root/allocate (its path returned):
// round(score x r) per layer, +10 with --normalize rank; the score is each layer's mean, or with
// --score text_median the median of its per_text values.
std::string allocate_stand_in(const fs::path& root) {
  const std::string python = std::string(RIPPLEKV_PYTHON_EXE).empty() ? "/usr/bin/env python3" : RIPPLEKV_PYTHON_EXE;
  ripplekv::test::write_text(root / "allocate", "#!" + python + R"PY(
import json, sys
args = dict(zip(sys.argv[2::2], sys.argv[3::2]))
assert sys.argv[1] == "allocate" and args["--budget"] == "5", sys.argv
layers = json.load(open(args["--profile"]))["layers"]
median = lambda v: sorted(v)[len(v) // 2] if len(v) % 2 else sum(sorted(v)[len(v) // 2 - 1:len(v) // 2 + 1]) / 2
means = [median(l["per_text"]) if args["--score"] == "text_median" else l["mean"] for l in layers]
extra = 10 if args["--normalize"] == "rank" else 0
json.dump({"allocations": [{"ratio": float(r), "budgets": [round(m * float(r)) + extra for m in means]}
                           for r in args["--ratio"].split(",")]}, open(args["--out"], "w"))
)PY");
  fs::permissions(root / "allocate", fs::perms::owner_all);
  return (root / "allocate").string();
}

void write_predictions(const fs::path& file, const std::vector<std::string>& preds) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file);
  for (size_t i = 0; i < preds.size(); ++i) {
    out << nlohmann::json{{"_id", std::to_string(i)}, {"pred", preds[i]}}.dump() << "\n";
  }
}

}  // namespace

TEST_CASE("run_pair.py and samples_needed.py: the pooled paired difference and the samples it needs") {
  const auto root = ripplekv::test::scratch_dir("result_scripts", "run_pair");
  const auto a = "ripple@profile=p_ratio=2_b1024", b = "cake_b1024";
  // Two sample sets of 3 prompts per column. A - B per prompt, pooled over the sets:
  // column x: 10 0 20 | 0 5 0, column y: 0 0 0 | 10 0 0.
  write_run(root / "s1" / "runs" / a, 1, {{"x@4096", {10, 20, 30}}, {"y@4096", {0, 0, 0}}});
  write_run(root / "s1" / "runs" / b, 1, {{"x@4096", {0, 20, 10}}, {"y@4096", {0, 0, 0}}});
  write_run(root / "s2" / "runs" / a, 2, {{"x@4096", {5, 5, 5}}, {"y@4096", {10, 10, 0}}});
  write_run(root / "s2" / "runs" / b, 2, {{"x@4096", {5, 0, 5}}, {"y@4096", {0, 10, 0}}});
  const std::vector<double> dx = {10, 0, 20, 0, 5, 0}, dy = {0, 0, 0, 10, 0, 0};
  const double delta = (35.0 / 6 + 10.0 / 6) / 2;  // the Avg difference: the mean of the column means

  SECTION("run_pair.py pools the sets: 12 samples, the mean of the column means") {
    const auto pa = (root / "s1/runs" / a).string() + ":" + (root / "s2/runs" / a).string();
    const auto pb = (root / "s1/runs" / b).string() + ":" + (root / "s2/runs" / b).string();
    const auto r = run_script("run_pair.py", "'" + pa + "' '" + pb + "'");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.output, Contains("| 12 | +3.75 |"));
    // --columns: column x alone (A - B: 10 0 20 | 0 5 0), named by its task or in full.
    for (const char* x : {"x", "x@4096"}) {
      const auto only = run_script("run_pair.py", std::string("--columns ") + x + " '" + pa + "' '" + pb + "'");
      INFO(only.output);
      REQUIRE(only.status == 0);
      CHECK_THAT(only.output, Contains("| 6 | +5.83 |"));
    }
    const auto none = run_script("run_pair.py", "--columns z '" + pa + "' '" + pb + "'");
    CHECK(none.status != 0);
    CHECK_THAT(none.output, Contains("has no column 'z' (it has ['x@4096', 'y@4096'])"));
  }

  SECTION("samples_needed.py: n = (z_.975 + z_.8)^2 * sum of the column variances / (T^2 delta^2)") {
    const double z = 1.959963984540054 + 0.8416212335729143;
    auto needed = [&](double effect) {  // per column, T = 2 columns, at least 2
      return std::max(2L, static_cast<long>(std::ceil(z * z * (sample_variance(dx) + sample_variance(dy)) /
                                                      (4 * effect * effect))));
    };
    const long n = needed(delta);
    REQUIRE(n > 2);
    const auto r = run_script("samples_needed.py", "--set '" + (root / "s1").string() + "' --set '" +
                                                       (root / "s2").string() + "' 'ripple@*_b1024' cake_b1024");
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.output, Contains("| 12 (6/task) | +3.75 ["));
    CHECK_THAT(r.output, Contains("| +3.75 | " + std::to_string(n) + " (" + std::to_string(2 * n) + ") |"));
    // Twice the effect needs a quarter of the samples (the floor of 2 aside).
    const auto r2 = run_script("samples_needed.py", "--effect 7.5 --set '" + (root / "s1").string() + "' --set '" +
                                                        (root / "s2").string() + "' 'ripple@*_b1024' cake_b1024");
    INFO(r2.output);
    REQUIRE(r2.status == 0);
    CHECK_THAT(r2.output, Contains("| +7.50 | " + std::to_string(needed(7.5)) + " ("));
  }

  SECTION("samples_needed.py --per-task N: the power of a run fixed at N per task") {
    // Phi(|delta| T sqrt(N / sum of the column variances) - z_.975), Phi(x) = erfc(-x / sqrt 2) / 2
    auto power = [&](int n) {
      const double x = delta * 2 * std::sqrt(n / (sample_variance(dx) + sample_variance(dy))) - 1.959963984540054;
      return 0.5 * std::erfc(-x / std::sqrt(2.0));
    };
    const std::string sets = "--set '" + (root / "s1").string() + "' --set '" + (root / "s2").string() + "' ";
    for (const int n : {5, 10}) {
      const auto r = run_script("samples_needed.py", "--per-task " + std::to_string(n) + " " + sets +
                                                         "'ripple@*_b1024' cake_b1024");
      INFO(r.output);
      REQUIRE(r.status == 0);
      CHECK_THAT(r.output, Contains("| power at " + std::to_string(n) + "/task (normal) |"));
      CHECK_THAT(r.output, Contains(fmt::format("| {:.2f} |\n", power(n))));
    }
    CHECK(power(5) < 0.5);  // the two counts give clearly different powers (0.46 and 0.75)
    CHECK(power(10) > 0.7);
    const auto bad = run_script("samples_needed.py", "--per-task 1 " + sets + "'ripple@*_b1024' cake_b1024");
    CHECK(bad.status != 0);
    CHECK_THAT(bad.output, Contains("--per-task must be at least 2"));
  }

  SECTION("bad input: folders of other prompts, a pattern that matches nothing") {
    write_run(root / "s3" / "runs" / a, 3, {{"x@4096", {1, 2, 3}}, {"y@4096", {0, 0, 0}}});
    auto r = run_script("run_pair.py", "'" + (root / "s3/runs" / a).string() + "' '" + (root / "s1/runs" / b).string() + "'");
    CHECK(r.status != 0);
    CHECK_THAT(r.output, Contains("scored different prompts (seed 3 vs 1 in config.json)"));
    r = run_script("samples_needed.py", "--set '" + (root / "s1").string() + "' 'h2o_*' cake_b1024");
    CHECK(r.status != 0);
    CHECK_THAT(r.output, Contains("'h2o_*' matches 0 folders under"));
  }
}

TEST_CASE("decode_agreement.py: RULER trees (<variant>/<length>/<task>.jsonl) compared prediction by prediction") {
  const auto root = ripplekv::test::scratch_dir("decode_agreement", "trees");
  // Variant v in both trees: task x at 4096, 2 samples; the second prediction differs and scores
  // 0 on the GPU side, 50 on the CPU side. Variant w is in one tree only and is not compared.
  write_run(root / "gpu" / "v", 1, {{"x@4096", {100, 0}}});
  write_predictions(root / "gpu" / "v" / "4096" / "x.jsonl", {"a", "b"});
  write_run(root / "cpu" / "v", 1, {{"x@4096", {100, 50}}});
  write_predictions(root / "cpu" / "v" / "4096" / "x.jsonl", {"a", "c"});
  write_run(root / "gpu" / "w", 1, {{"x@4096", {0, 0}}});
  write_predictions(root / "gpu" / "w" / "4096" / "x.jsonl", {"a", "b"});
  // Kept-token logs of v (per shard, and one file as an unsharded run writes): sample 0 kept the
  // same tokens in both trees, sample 1 not (its layer 1 kept 3 tokens against 4); a record of
  // another task (xy) and a torn last line are not compared.
  ripplekv::test::write_text(root / "gpu" / "v" / "4096" / "kept" / "x.shard-0-of-2.jsonl",
                             "{\"_id\":\"0\",\"compressed\":true,\"kept\":[5,4]}\n"
                             "{\"_id\":\"1\",\"compressed\":true,\"kept\":[5,3]}\n");
  ripplekv::test::write_text(root / "cpu" / "v" / "4096" / "kept" / "x.jsonl",
                             "{\"_id\":\"0\",\"compressed\":true,\"kept\":[5,4]}\n");
  ripplekv::test::write_text(root / "cpu" / "v" / "4096" / "kept" / "x.shard-1-of-2.jsonl",
                             "{\"_id\":\"1\",\"compressed\":true,\"kept\":[5,4]}\n{\"_id\":\"2\",\"kep");
  ripplekv::test::write_text(root / "cpu" / "v" / "4096" / "kept" / "xy.shard-0-of-2.jsonl",
                             "{\"_id\":\"0\",\"kept\":[1,1]}\n");
  const auto r = run_script("decode_agreement.py",
                            "--labels cuda cpu '" + (root / "gpu").string() + "' '" + (root / "cpu").string() + "'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("tasks: x@4096."));
  CHECK_THAT(r.output, Contains("**1 of 2 predictions identical (50.0%)**, 1 variants."));
  CHECK_THAT(r.output,
             Contains("| variant | samples | identical | kept tokens identical | mean score cuda | cpu | difference |"));
  // 1 token apart in 1 of the 4 layer counts of the two samples: 0.25 tokens a layer.
  CHECK_THAT(r.output, Contains("| v | 2 | 1 | 1 of 2 (0.25 tokens a layer apart) | 50.00 | 75.00 | -25.00 |"));
  CHECK_THAT(r.output, !Contains("| w |"));
  // LongBench's layout (<variant>/<task>.jsonl, columns named by task) with the default labels.
  write_run(root / "lb_a" / "u", 1, {{"y", {10, 20, 30}}});
  write_predictions(root / "lb_a" / "u" / "y.jsonl", {"p", "q", "r"});
  write_run(root / "lb_b" / "u", 1, {{"y", {10, 20, 0}}});
  write_predictions(root / "lb_b" / "u" / "y.jsonl", {"p", "q", "s"});
  const auto lb = run_script("decode_agreement.py", "'" + (root / "lb_a").string() + "' '" + (root / "lb_b").string() + "'");
  INFO(lb.output);
  REQUIRE(lb.status == 0);
  CHECK_THAT(lb.output, Contains("(batched) against"));
  CHECK_THAT(lb.output, Contains("**2 of 3 predictions identical (66.7%)**"));
  CHECK_THAT(lb.output, Contains("| u | 3 | 2 | - | 20.00 | 10.00 | +10.00 |"));  // no kept-token logs
}

TEST_CASE("allocation_agreement.py: allocations compared between prompts, with a reference, and per layer") {
  const auto root = ripplekv::test::scratch_dir("allocation_agreement", "kept");
  // Two variants of a RULER tree, 3 layers, tasks a (two shard files) and b. The static variant
  // keeps the same tokens for every prompt; the reference's allocation varies per prompt.
  const auto kept = [](const std::vector<std::pair<std::string, std::vector<int>>>& rows) {
    std::string text;
    for (const auto& [id, k] : rows) {
      text += nlohmann::json{{"_id", id}, {"compressed", true}, {"kept", k}}.dump() + "\n";
    }
    return text;
  };
  ripplekv::test::write_text(root / "ref/4096/kept/a.shard-0-of-2.jsonl", kept({{"0", {10, 20, 60}}}));
  ripplekv::test::write_text(root / "ref/4096/kept/a.shard-1-of-2.jsonl", kept({{"1", {5, 25, 45}}}));
  ripplekv::test::write_text(root / "ref/4096/kept/b.jsonl", kept({{"0", {60, 20, 10}}}));
  ripplekv::test::write_text(root / "static/4096/kept/a.jsonl", kept({{"0", {50, 30, 10}}, {"1", {50, 30, 10}}}));
  ripplekv::test::write_text(root / "static/4096/kept/b.jsonl", kept({{"0", {50, 30, 10}}}));
  const std::string ref = "--reference '" + (root / "ref").string() + "' '" + (root / "static").string() + "'";

  auto r = run_script("allocation_agreement.py", ref);
  INFO(r.output);
  REQUIRE(r.status == 0);
  // Between prompts: identical allocations, 1.00. With the reference: Spearman -1 on a/0 and
  // a/1 (the reference ranks the layers 1, 2, 3, static 3, 2, 1), +1 on b/0: median -1. The
  // largest over the smallest layer: 50 / 10 in every sample.
  CHECK_THAT(r.output, Contains("| static | 3 | 1.00 | -1.00 (3) | 5.0 |"));
  CHECK_THAT(r.output, !Contains("Mean tokens kept per layer"));

  r = run_script("allocation_agreement.py", "--tasks a --layers " + ref);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("| static | 2 | 1.00 | -1.00 (2) | 5.0 |"));
  CHECK_THAT(r.output, Contains("| layer | ref | static |"));
  CHECK_THAT(r.output, Contains("| 0 | 7.5 | 50.0 |"));  // task a only: b's (60, 20, 10) left out
  CHECK_THAT(r.output, Contains("| 1 | 22.5 | 30.0 |"));
  CHECK_THAT(r.output, Contains("| 2 | 52.5 | 10.0 |"));

  r = run_script("allocation_agreement.py", "--tasks vt " + ref);
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("/ref: no compressed sample of the tasks vt (--tasks)"));
}

TEST_CASE("evict_profile.py: one layer compressed at a time, its KLs made a profile the ripple allocator reads") {
  const auto root = ripplekv::test::scratch_dir("evict_profile", "layers");
  // 3 layers, 10-token prompts, about 4 kept: the others 10 each, so the total is 24 = 3 x 8.
  auto r = run_script("evict_profile.py", "allocations --min-kept 1 --layers 3 --prompt-tokens 10 --target 4 --dir '" +
                                              (root / "alloc").string() + "'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output == "4 8\n");
  CHECK(ripplekv::test::read_text(root / "alloc/layer01.txt") == "10\n4\n10\n");
  // A target whose total is not whole moves to the nearest one that is (6 -> 7: 27 = 3 x 9).
  r = run_script("evict_profile.py", "allocations --min-kept 1 --layers 3 --prompt-tokens 10 --target 6 --dir '" +
                                         (root / "alloc6").string() + "'");
  CHECK(r.output == "7 9\n");
  r = run_script("evict_profile.py", "allocations --min-kept 1 --layers 3 --prompt-tokens 10 --target 10 --dir '" +
                                         (root / "bad").string() + "'");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("0 < --target < --prompt-tokens"));
  // A layer that must keep at least the selector's window (32 by default) cannot be cut to 4.
  r = run_script("evict_profile.py", "allocations --layers 3 --prompt-tokens 100 --target 4 --dir '" +
                                         (root / "bad").string() + "'");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("--target 4 is too close to --min-kept 32"));

  // A fidelity run of the three variants on 2 texts (and the full cache, which is left out).
  const auto fid = root / "fidelity";
  ripplekv::test::write_text(fid / "config.json", R"({"options": {"texts": "t.jsonl", "skip-texts": 0,
      "prompt-tokens": 10, "continuation": 32, "dtype": "bfloat16"}})");
  std::string csv = "method,budget,text,kl_mean,top1_agreement\n\"full\",8,0,0,1\n";
  const double kl[3][2] = {{0.1, 0.3}, {0.02, 0.04}, {0.5, 0.7}};
  for (int layer = 0; layer < 3; ++layer) {
    for (int text = 0; text < 2; ++text) {
      csv += fmt::format("\"snapkv:profile@file=out/alloc/layer{:02d}.txt\",8,{},{},0.5\n", layer, text, kl[layer][text]);
    }
  }
  ripplekv::test::write_text(fid / "fidelity_texts.csv", csv);
  nlohmann::json like = {{"format", "ripplekv-sensitivity-profile"}, {"version", 1},
                         {"model", {{"num_layers", 3}, {"dtype", "float32"}, {"weights_fingerprint", "ckpt1:x"}}},
                         {"calibration", {{"path", "t.jsonl"}, {"hash", "h"}, {"samples", 8}, {"max_tokens", 512}}},
                         {"settings", {{"eps", 0.1}, {"noise_mode", "layer_mean"}}},
                         {"layers", {{{"layer", 0}, {"mean", 3.0}}, {{"layer", 1}, {"mean", 2.0}}, {{"layer", 2}, {"mean", 1.0}}}}};
  ripplekv::test::write_text(root / "like.json", like.dump());
  const auto out = root / "evict.json";
  r = run_script("evict_profile.py", "profile --fidelity '" + fid.string() + "' --like '" + (root / "like.json").string() +
                                         "' --layer-budget 4 --out '" + out.string() + "'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("eviction order (most sensitive first): 2 0 1"));
  CHECK_THAT(r.output, Contains("noise order (like.json): 0 1 2"));
  CHECK_THAT(r.output, Contains("Spearman(eviction, noise) = -0.50"));
  const auto p = nlohmann::json::parse(ripplekv::test::read_text(out));
  CHECK(p["layers"][0]["mean"].get<double>() == Approx(0.2));
  CHECK(p["layers"][0]["stderr"].get<double>() == Approx(0.1));  // sd 0.1414 / sqrt(2)
  CHECK(p["layers"][2]["max"].get<double>() == Approx(0.7));
  CHECK(p["layers"][1]["same_top_rate"].get<double>() == Approx(0.5));
  CHECK(p["settings"]["noise_mode"] == "evict-snapkv-b4");
  CHECK(p["settings"]["eps"].get<double>() == 0.0);
  CHECK(p["calibration"]["samples"] == 2);
  CHECK(p["calibration"]["max_tokens"] == 10);
  CHECK(p["calibration"]["hash"] == "h");
  CHECK(p["model"]["dtype"] == "bfloat16");
  CHECK(p["model"]["weights_fingerprint"] == "ckpt1:x");
  // ripplekv's own reader (the ripple allocator's) takes it
  const auto read = ripplekv::read_profile_json(out.string());
  CHECK(read.scores("mean") == std::vector<double>{0.2, 0.03, 0.6});
  CHECK(read.layers[2].per_text == std::vector<double>{0.5, 0.7});  // each text's KL, for score=text_median
  CHECK(read.scores("text_median")[1] == Approx(0.03));
  CHECK(read.noise_mode == "evict-snapkv-b4");

  // compare: the eviction order (2 0 1) against a variant that kept, per layer, 30, 10, 50
  // tokens on average (two prompts), and the noise order (0 1 2) against it.
  ripplekv::test::write_text(root / "cake/4096/kept/x.jsonl",
                             "{\"_id\": \"0\", \"compressed\": true, \"kept\": [20, 10, 60]}\n"
                             "{\"_id\": \"1\", \"compressed\": true, \"kept\": [40, 10, 40]}\n");
  r = run_script("evict_profile.py", "compare --reference '" + (root / "cake").string() + "' '" + out.string() + "' '" +
                                         (root / "like.json").string() + "'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("| (cake itself) | 1.00 | 2 0 1 |"));
  CHECK_THAT(r.output, Contains("| evict.json | 1.00 | 2 0 1 |"));
  CHECK_THAT(r.output, Contains("| like.json | -0.50 | 0 1 2 |"));

  // A run that lacks a layer's variant is refused.
  ripplekv::test::write_text(fid / "fidelity_texts.csv", csv.substr(0, csv.rfind('\n', csv.find("layer02")) + 1));
  r = run_script("evict_profile.py", "profile --fidelity '" + fid.string() + "' --like '" + (root / "like.json").string() +
                                         "' --layer-budget 4 --out '" + out.string() + "'");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("one variant per layer (layerNN.txt) is needed"));
}

TEST_CASE("profile_stability.py: Spearman between sets, seeds, eps, another setting and a profile, from one-text profiles") {
  const auto root = ripplekv::test::scratch_dir("profile_stability", "sets");
  // One-text profiles as profile_stability.sh leaves them: OUT/per_text/eps<e>_seed<s>_text<i>.json.
  // p90 is the mean + 1 unless given.
  auto write_profile = [&](const fs::path& out, const std::string& eps, int seed, int text,
                           const std::vector<double>& means, const std::string& dtype = "float32",
                           const std::vector<double>& p90 = {}) {
    nlohmann::json layers = nlohmann::json::array();
    for (size_t i = 0; i < means.size(); ++i) {
      layers.push_back({{"layer", i}, {"mean", means[i]}, {"p90", p90.empty() ? means[i] + 1 : p90[i]},
                        {"max", 2 * means[i]}, {"same_top_rate", 0.5}});
    }
    nlohmann::json p = {{"format", "ripplekv-sensitivity-profile"}, {"version", 1}, {"seconds", 10.0},
                        {"model", {{"path", "/cache/models/m"}, {"dtype", dtype}, {"num_layers", means.size()}}},
                        {"calibration", {{"path", "/d/multi_news.jsonl"}, {"hash", "h"}, {"samples", 1}, {"skip", text},
                                         {"max_tokens", 16}}},
                        {"settings", {{"eps", std::stod(eps)}, {"seed", seed}, {"noise_mode", "layer_mean"},
                                      {"positions", "all"}, {"kl_positions", 8}, {"kl_direction", "forward"}}},
                        {"layers", layers}};
    ripplekv::test::write_text(out / "per_text" / fmt::format("eps{}_seed{}_text{}.json", eps, seed, text), p.dump());
  };
  // n = 2: set A = texts 0 and 1 (mean 5 4 3 2), set B = texts 2 and 3 (4 3 1 2): Spearman 0.8.
  // Set A's p90 is 4.5 5.5 4 4 (text 0's given), set B's 5 4 2 3: -3.5 / sqrt(22.5) = 0.738 with
  // scipy's ties, as every 0.738 below.
  const auto out = root / "f32";
  write_profile(out, "0.1", 0, 0, {4, 3, 2, 1}, "float32", {2, 5, 3, 4});
  write_profile(out, "0.1", 0, 1, {6, 5, 4, 3});
  write_profile(out, "0.1", 0, 2, {4, 3, 1, 2});
  write_profile(out, "0.1", 0, 3, {4, 3, 1, 2});
  for (int t = 0; t < 2; ++t) {
    write_profile(out, "0.1", 1, t, {3, 4, 1, 1});  // another seed: 0.738 (p90 4 5 2 2: 1.0)
    write_profile(out, "0.05", 0, t, {1.0 + t, 0.75, 0.5, 0.25});  // eps: the same order, 1.0
    write_profile(out, "0.2", 0, t, {16, 12, 8, 4.0 + t});
  }
  // Another setting of the same texts, mostly in the opposite order: -1 on set A; per text -1, -1,
  // -0.6 (text 2: 2 1 3 4), -0.8, so a median of -0.9 (a mean of -0.85).
  const auto other = root / "bf16";
  for (int t = 0; t < 4; ++t) {
    write_profile(other, "0.1", 0, t, t == 2 ? std::vector<double>{2, 1, 3, 4} : std::vector<double>{1, 2, 3, 4},
                  "bfloat16");
  }
  // An experiment's profile of set A's texts, in set A's order.
  nlohmann::json experiment = {{"model", {{"dtype", "float32"}}},
                               {"calibration", {{"samples", 2}, {"skip", 0}, {"max_tokens", 16}}},
                               {"settings", {{"noise_mode", "layer_mean"}}},
                               {"layers", {{{"mean", 8.0}}, {{"mean", 6.0}}, {{"mean", 4.0}}, {{"mean", 2.0}}}}};
  ripplekv::test::write_text(root / "experiment.json", experiment.dump());
  const std::string dir = "'" + out.string() + "' --n 2";

  const auto r = run_script("profile_stability.py", dir + " --against '" + other.string() + "' --profile '" +
                                                        (root / "experiment.json").string() + "'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("forward KL, float32."));
  CHECK_THAT(r.output, Contains("| texts 0-1 vs texts 2-3 (disjoint sets) | 0.800 | 0.800 | 0.738 |"));
  CHECK_THAT(r.output, Contains("| seed 0 vs seed 1 (same texts) | 0.738 | 0.738 | 1.000 |"));
  CHECK_THAT(r.output, Contains("| eps 0.1 vs eps 0.05 (same texts) | 1.000 | 1.000 | 0.738 |"));
  CHECK_THAT(r.output, Contains("| eps 0.05 vs eps 0.2 | 1.000 | 1.000 | 1.000 |"));
  CHECK_THAT(r.output, Contains("| vs bfloat16, layer_mean noise, 16 tokens ("));
  CHECK_THAT(r.output, Contains("set A (texts 0-1) | -1.000 | -1.000 | -0.738 |"));
  CHECK_THAT(r.output, Contains("set B (texts 2-3) | -0.738 | -0.738 | -0.738 |"));
  CHECK_THAT(r.output, Contains("single texts: median over 4 texts | -0.900 |"));
  CHECK_THAT(r.output, Contains("| vs experiment.json (2 texts from 0, 16 tokens, float32, layer_mean), against set A | 1.000 |"));
  CHECK_THAT(r.output, Contains("mean vs p90: 0.738"));
  CHECK_THAT(r.output, Contains("| 1 | 0.800 | 0.800 | 0.800 |"));  // k texts of set A against set B
  CHECK_THAT(r.output, Contains("Most sensitive layers (set A, mean): 0 (5.00e+00), 1 (4.00e+00)"));
  CHECK(ripplekv::test::read_text(out / "stability.md").find("(disjoint sets) | 0.800") != std::string::npos);
  // The merged set-A profile: the mean over texts, its standard error, the largest max.
  const auto merged = nlohmann::json::parse(ripplekv::test::read_text(out / "merged_eps0.1_seed0_texts0-1.json"));
  CHECK(merged["calibration"]["samples"] == 2);
  CHECK(merged["layers"][0]["mean"].get<double>() == Approx(5.0));
  CHECK(merged["layers"][0]["stderr"].get<double>() == Approx(1.0));  // sd 1.414 / sqrt(2)
  CHECK(merged["layers"][0]["max"].get<double>() == Approx(12.0));
  CHECK(merged["merged_from"] == nlohmann::json{"per_text/eps0.1_seed0_text0.json", "per_text/eps0.1_seed0_text1.json"});
  CHECK(fs::exists(out / "profile_stability.png"));
  CHECK(merged.size() == nlohmann::json::parse(ripplekv::test::read_text(out / "per_text/eps0.1_seed0_text0.json")).size() + 2);
  // Set B, both sets and seed 1 merged too: layer 2's mean is 1 in set B, (3 + 1) / 2 = 2 over all
  // four texts, 1 with seed 1; each keeps its texts' own per_text values and calibration start.
  const auto merged_b = nlohmann::json::parse(ripplekv::test::read_text(out / "merged_eps0.1_seed0_texts2-3.json"));
  CHECK(merged_b["calibration"]["skip"] == 2);
  CHECK(merged_b["layers"][2]["mean"].get<double>() == Approx(1.0));
  const auto merged_ab = nlohmann::json::parse(ripplekv::test::read_text(out / "merged_eps0.1_seed0_texts0-3.json"));
  CHECK(merged_ab["calibration"]["samples"] == 4);
  CHECK(merged_ab["layers"][2]["mean"].get<double>() == Approx(2.0));
  CHECK(merged_ab["layers"][2]["per_text"] == nlohmann::json{2.0, 4.0, 1.0, 1.0});
  const auto merged_seed1 = nlohmann::json::parse(ripplekv::test::read_text(out / "merged_eps0.1_seed1_texts0-1.json"));
  CHECK(merged_seed1["settings"]["seed"] == 1);
  CHECK(merged_seed1["layers"][2]["mean"].get<double>() == Approx(1.0));

  // --allocate BIN: the budgets of the two sets' (and seeds') profiles compared. A stand-in for
  // `ripplekv allocate` gives round(mean x r) per layer (+10 with --normalize rank), so set A's r=2
  // budgets are 10 8 6 4 and set B's 8 6 2 4: 8 of 48 tokens differ, 16.7%; rank r=8: 50 42 34 26
  // against 42 34 18 26, 32 of 272, 11.8%; seed 1's 6 8 2 2: 10 of 46, 21.7%, and rank 40 of 264,
  // 15.2%; against equal budgets of 5: 10 of 48, 92 of 132, 132 of 172.
  const auto alloc = run_script("profile_stability.py", dir + " --budget 5 --allocate '" + allocate_stand_in(root) + "'");
  INFO(alloc.output);
  REQUIRE(alloc.status == 0);
  CHECK_THAT(alloc.output, Contains("| texts 0-1 vs texts 2-3 (disjoint sets) | 16.7% | 16.7% | 11.8% |"));
  CHECK_THAT(alloc.output, Contains("| seed 0 vs seed 1 (same texts) | 21.7% | 21.7% | 15.2% |"));
  CHECK_THAT(alloc.output, Contains("| texts 0-1 vs equal budgets (for scale) | 20.8% | 69.7% | 76.7% |"));
  // The median over two texts is their mean: the disjoint sets' figures again.
  CHECK_THAT(alloc.output, Contains("| disjoint sets, each the median over its texts (score=text_median) | "
                                    "16.7% | 16.7% | 11.8% |"));
  auto failed = run_script("profile_stability.py", dir + " --allocate /bin/false");
  CHECK(failed.status != 0);
  CHECK_THAT(failed.output, Contains("--allocate: /bin/false allocate --profile"));
  failed = run_script("profile_stability.py", dir + " --allocate '" + (root / "no_such_binary").string() + "'");
  CHECK(failed.status != 0);
  CHECK_THAT(failed.output, Contains("no_such_binary: cannot run it"));
  failed = run_script("profile_stability.py", dir + " --budget 5");
  CHECK(failed.status != 0);
  CHECK_THAT(failed.output, Contains("--budget is for --allocate BIN"));
  // An --against folder that lacks a text of set B says so in that row.
  fs::remove(other / "per_text/eps0.1_seed0_text3.json");
  const auto partial = run_script("profile_stability.py", dir + " --against '" + other.string() + "'");
  REQUIRE(partial.status == 0);
  CHECK_THAT(partial.output, Contains("set B | " + other.string() + " has only 1 of its 2 texts |"));
  CHECK_THAT(partial.output, Contains("single texts: median over 3 texts | -1.000 |"));

  // Another model's profiles (3 layers) are refused by name, and so are a set that is not there and
  // profiles of another calibration file.
  for (int t = 0; t < 2; ++t) write_profile(root / "three", "0.1", 0, t, {1, 2, 3});
  auto bad = run_script("profile_stability.py", dir + " --against '" + (root / "three").string() + "'");
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Contains("3 layers, not 4: another model's profiles"));
  bad = run_script("profile_stability.py", dir + " --against '" + (root / "none").string() + "'");
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Contains("has no eps0.1_seed0 profile of texts 0-3"));
  for (int t = 0; t < 2; ++t) {
    write_profile(root / "elsewhere", "0.1", 0, t, {1, 2, 3, 4});
    const auto file = root / "elsewhere" / fmt::format("per_text/eps0.1_seed0_text{}.json", t);
    auto p = nlohmann::json::parse(ripplekv::test::read_text(file));
    p["calibration"]["hash"] = "g";
    ripplekv::test::write_text(file, p.dump());
  }
  bad = run_script("profile_stability.py", dir + " --against '" + (root / "elsewhere").string() + "'");
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Contains("another calibration file (hash g, not h), so not the same texts"));
  // A set B this folder lacks texts of: the row says so.
  const auto half = run_script("profile_stability.py", "'" + (root / "three").string() + "' --n 2");
  INFO(half.output);
  CHECK(half.status == 0);
  CHECK_THAT(half.output, Contains("| disjoint sets | set B has only 0 of its 2 texts |"));
  bad = run_script("profile_stability.py", "'" + (root / "three").string() + "' --n 3");
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Contains("only 2 of the first 3 default profiles exist"));
}

TEST_CASE("fidelity_pair.py: two variants of one fidelity run, named by a substring or by their end ($), and pooled pairs") {
  const auto root = ripplekv::test::scratch_dir("fidelity_pair", "run");
  // Budget 8: A - B = +0.1 on every text, so every resample gives +0.1. "ratio=2" is in both
  // methods; "ratio=2$" ends only the second.
  ripplekv::test::write_text(root / "fidelity_texts.csv",
                             "method,budget,text,kl_mean,top1_agreement\n"
                             "\"ripple@ratio=2,score=text_median\",8,0,0.3,1\n\"ripple@ratio=2,score=text_median\",8,1,0.4,1\n"
                             "\"ripple@ratio=2,score=text_median\",8,2,0.5,0.5\n"
                             "\"ripple@ratio=2\",8,0,0.2,1\n\"ripple@ratio=2\",8,1,0.3,0.5\n\"ripple@ratio=2\",8,2,0.4,0.5\n");
  const std::string run = "'" + root.string() + "' '" + root.string() + "' --budget 8";
  auto r = run_script("fidelity_pair.py", run + " --a-method 'ratio=2,score=text_median' --b-method 'ratio=2$'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("budget 8, 3 texts: KL(A) - KL(B) = +0.1000 [+0.1000, +0.1000] (B closer); A 0.4000, "
                                "B 0.3000"));
  CHECK_THAT(r.output, Contains("  B: ripple@ratio=2\n"));
  // A substring in both methods is refused, naming them.
  r = run_script("fidelity_pair.py", run + " --a-method 'ratio=2,score=text_median' --b-method 'ratio=2'");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("2 methods at budget 8 containing 'ratio=2'"));
  // A second pair of folders (another text file, whose text ids repeat the first's) pools its
  // texts: +0.1 on three texts and -0.1 on two give +0.02 over five, a tie.
  const auto other = ripplekv::test::scratch_dir("fidelity_pair", "other");
  ripplekv::test::write_text(other / "fidelity_texts.csv",
                             "method,budget,text,kl_mean,top1_agreement\n"
                             "\"ripple@ratio=2,score=text_median\",8,0,0.1,1\n\"ripple@ratio=2,score=text_median\",8,1,0.2,1\n"
                             "\"ripple@ratio=2\",8,0,0.2,1\n\"ripple@ratio=2\",8,1,0.3,0.5\n");
  const std::string methods = " --a-method 'ratio=2,score=text_median' --b-method 'ratio=2$'";
  r = run_script("fidelity_pair.py", run + " '" + other.string() + "' '" + other.string() + "'" + methods +
                                         " --resamples 500");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("budget 8, 5 texts of 2 pairs of folders: KL(A) - KL(B) = +0.0200 ["));
  CHECK_THAT(r.output, Contains("(tie); A 0.3000, B 0.2800"));
  // An odd number of folders, or too few resamples, is refused.
  r = run_script("fidelity_pair.py", run + " '" + other.string() + "'" + methods);
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("3 folders: give them in pairs"));
  r = run_script("fidelity_pair.py", run + methods + " --resamples 10");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("--resamples 10: use at least 100"));
  // The same pair twice would count its texts twice; a '$' pattern that matches nothing says "ending in".
  r = run_script("fidelity_pair.py", run + " '" + root.string() + "' '" + root.string() + "'" + methods);
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("a pair of folders is given twice"));
  r = run_script("fidelity_pair.py", run + " --a-method 'ratio=4$'");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("0 methods at budget 8 ending in 'ratio=4'"));
  // --texts keeps a range of text ids: texts 1 and 2 of the first folder.
  r = run_script("fidelity_pair.py", run + methods + " --texts 1-2");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("budget 8, 2 texts: KL(A) - KL(B) = +0.1000 [+0.1000, +0.1000] (B closer); A 0.4500, "
                                "B 0.3500"));
  r = run_script("fidelity_pair.py", run + methods + " --texts 5");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("--texts 5: give FIRST-LAST"));
}

TEST_CASE("fidelity32_h2o_pairs.py: h2o:ripple against the best baseline and its SnapKV twin, after a bit check of H2O") {
  const auto model = ripplekv::test::scratch_dir("fidelity32_h2o_pairs", "model");
  // One budget of a fidelity folder: fidelity.csv (the means), fidelity_texts.csv (per text) and,
  // for H2O, variants/h2o_b<budget>/fidelity.jsonl (per position; here one position per text).
  using Rows = std::vector<std::pair<std::string, std::vector<double>>>;
  std::map<fs::path, std::pair<std::string, std::string>> csvs;  // folder -> (means, texts) so far
  auto write_folder = [&](const std::string& name, int budget, const Rows& rows) {
    const auto dir = model / name;
    auto& [means, texts] = csvs[dir];
    for (const auto& [method, kl] : rows) {
      means += fmt::format("\"{}\",{},3,{}\n", method, budget, (kl[0] + kl[1] + kl[2]) / 3);
      std::string jsonl;
      for (std::size_t t = 0; t < kl.size(); ++t) {
        texts += fmt::format("\"{}\",{},{},{},1\n", method, budget, t, kl[t]);
        jsonl += nlohmann::json{{"_id", fmt::format("text-{}", t)}, {"kl", {kl[t]}}}.dump() + "\n";
      }
      if (method == "h2o") ripplekv::test::write_text(dir / "variants" / fmt::format("h2o_b{}", budget) / "fidelity.jsonl", jsonl);
    }
    ripplekv::test::write_text(dir / "fidelity.csv", "method,budget,texts,kl_mean\n" + means);
    ripplekv::test::write_text(dir / "fidelity_texts.csv", "method,budget,text,kl_mean,top1_agreement\n" + texts);
  };
  const std::string h2o_ripple = "h2o:ripple@profile=p.json,ratio=2", snap_ripple = "ripple@profile=p.json,ratio=2";
  const Rows others = {{"snapkv", {0.9, 0.9, 0.9}}, {"pyramidkv", {0.9, 0.9, 0.9}}, {"streamingllm", {0.9, 0.9, 0.9}},
                       {"squeeze", {0.9, 0.9, 0.9}}};
  auto with = [&](Rows rows) {
    rows.insert(rows.end(), others.begin(), others.end());
    return rows;
  };
  // Budget 8: H2O matches fidelity32_all's; CAKE is the best baseline there (0.2 on every text),
  // so h2o:ripple (0.3) minus CAKE is +0.1 on every text, and minus SnapKV's selector with the
  // same budgets (0.5) is -0.2.
  write_folder("fidelity32_h2o", 8, {{"h2o", {0.4, 0.5, 0.6}}, {h2o_ripple, {0.3, 0.3, 0.3}}});
  write_folder("fidelity32_all", 8, with({{"h2o", {0.4, 0.5, 0.6}}, {"cake", {0.2, 0.2, 0.2}}, {snap_ripple, {0.5, 0.5, 0.5}}}));
  // Budget 16: fidelity32_budgets' H2O differs on text 1, so that budget gets no pairs.
  write_folder("fidelity32_h2o", 16, {{"h2o", {0.1, 0.2, 0.3}}, {h2o_ripple, {0.1, 0.1, 0.1}}});
  write_folder("fidelity32_budgets", 16, with({{"h2o", {0.1, 0.25, 0.3}}, {"cake", {0.05, 0.05, 0.05}}}));
  const std::string args = "'" + model.string() + "' --resamples 200";
  auto r = run_script("fidelity32_h2o_pairs.py", args);
  INFO(r.output);
  CHECK(r.status == 3);  // the failed bit check
  CHECK_THAT(r.output, Contains("budget 8: H2O equals " + (model / "fidelity32_all").string() +
                                "'s, bit for bit, on all 3 texts; best baseline there: cake"));
  CHECK_THAT(r.output, Contains("  ratio=2 - cake: budget 8, 3 texts: KL(A) - KL(B) = +0.1000 [+0.1000, +0.1000] (B closer)"));
  CHECK_THAT(r.output, Contains("  ratio=2 - the same with SnapKV's selector: budget 8, 3 texts: KL(A) - KL(B) = -0.2000 "
                                "[-0.2000, -0.2000] (A closer)"));
  CHECK_THAT(r.output, Contains("budget 16: H2O differs from " + (model / "fidelity32_budgets").string() +
                                "'s on text-1: no pairs"));
  // With H2O made equal, budget 16 pairs too: H2O is then the best baseline (0.2 against CAKE's
  // 0.3), the pair repeats `ripplekv table`'s, and no SnapKV-selector run is there.
  csvs.erase(model / "fidelity32_budgets");
  write_folder("fidelity32_budgets", 16, with({{"h2o", {0.1, 0.2, 0.3}}, {"cake", {0.3, 0.3, 0.3}}}));
  r = run_script("fidelity32_h2o_pairs.py", args);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("budget 16: H2O equals"));
  CHECK_THAT(r.output, Contains("  ratio=2 - h2o (analysis 1 again: ripplekv table's interval is the one to report): "
                                "budget 16, 3 texts: KL(A) - KL(B) = -0.1000"));
  CHECK_THAT(r.output, Contains("  ratio=2 - the same with SnapKV's selector: not run in " +
                                (model / "fidelity32_budgets").string()));
  // A budget no folder beside ran all six baselines at: named, exit 3.
  write_folder("fidelity32_h2o", 32, {{"h2o", {0.1, 0.2, 0.3}}, {h2o_ripple, {0.1, 0.1, 0.1}}});
  r = run_script("fidelity32_h2o_pairs.py", args);
  INFO(r.output);
  CHECK(r.status == 3);
  CHECK_THAT(r.output, Contains("budget 32: no folder of fidelity32_all, fidelity32_budgets in " + model.string() +
                                " ran all six baselines at this budget"));
  // A model folder without the run is named with the fix.
  r = run_script("fidelity32_h2o_pairs.py", "'" + (model / "none").string() + "'");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("fidelity32_h2o/fidelity.csv: cannot read it") &&
                           Contains("give a model folder holding the --run folder (fidelity32_h2o/"));

  // Another selector's run (--selector, --run). At budget 8 both folders hold StreamingLLM's
  // per-position KL (variants/streamingllm_b8), equal, so it is compared bit for bit and pairs as
  // H2O's did; at 16 neither does, so it is compared per text as printed, and differs on text 1.
  const std::string sl_ripple = "streamingllm:ripple@profile=p.json,ratio=2";
  std::string sl_jsonl;
  for (int t = 0; t < 3; ++t) sl_jsonl += nlohmann::json{{"_id", fmt::format("text-{}", t)}, {"kl", {0.9}}}.dump() + "\n";
  for (const auto* folder : {"fidelity32_all", "fidelity32_streaming"})
    ripplekv::test::write_text(model / folder / "variants" / "streamingllm_b8" / "fidelity.jsonl", sl_jsonl);
  write_folder("fidelity32_streaming", 8, {{"streamingllm", {0.9, 0.9, 0.9}}, {sl_ripple, {0.3, 0.3, 0.3}}});
  write_folder("fidelity32_streaming", 16, {{"streamingllm", {0.9, 0.8, 0.9}}, {sl_ripple, {0.1, 0.1, 0.1}}});
  const std::string streaming = args + " --selector streamingllm --run fidelity32_streaming";
  r = run_script("fidelity32_h2o_pairs.py", streaming);
  INFO(r.output);
  CHECK(r.status == 3);
  CHECK_THAT(r.output, Contains("budget 8: StreamingLLM equals " + (model / "fidelity32_all").string() +
                                "'s, bit for bit, on all 3 texts; best baseline there: cake"));
  CHECK_THAT(r.output, Contains("  ratio=2 - cake: budget 8, 3 texts: KL(A) - KL(B) = +0.1000 [+0.1000, +0.1000] (B closer)"));
  CHECK_THAT(r.output, Contains("  ratio=2 - the same with SnapKV's selector: budget 8, 3 texts: KL(A) - KL(B) = -0.2000"));
  CHECK_THAT(r.output, Contains("budget 16: StreamingLLM differs from " + (model / "fidelity32_budgets").string() +
                                "'s on 1: no pairs (compared per text as printed)"));
  // Per-position KL that differ where the per-text means agree: the bit check finds it.
  ripplekv::test::write_text(model / "fidelity32_streaming" / "variants" / "streamingllm_b8" / "fidelity.jsonl",
                             sl_jsonl.substr(0, sl_jsonl.rfind("0.9")) + "0.90000001]}\n");
  r = run_script("fidelity32_h2o_pairs.py", streaming);
  INFO(r.output);
  CHECK_THAT(r.output, Contains("budget 8: StreamingLLM differs from " + (model / "fidelity32_all").string() +
                                "'s on text-2: no pairs (compared bit for bit)"));
  // With StreamingLLM equal at 16 too, per text, every budget pairs.
  csvs.erase(model / "fidelity32_streaming");
  ripplekv::test::write_text(model / "fidelity32_streaming" / "variants" / "streamingllm_b8" / "fidelity.jsonl", sl_jsonl);
  write_folder("fidelity32_streaming", 8, {{"streamingllm", {0.9, 0.9, 0.9}}, {sl_ripple, {0.3, 0.3, 0.3}}});
  write_folder("fidelity32_streaming", 16, {{"streamingllm", {0.9, 0.9, 0.9}}, {sl_ripple, {0.1, 0.1, 0.1}}});
  r = run_script("fidelity32_h2o_pairs.py", streaming);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("budget 16: StreamingLLM equals " + (model / "fidelity32_budgets").string() +
                                "'s, per text as printed (mean KL and top-1 agreement; variants/ absent), on all 3 "
                                "texts; best baseline there: h2o"));
  // A run folder without that selector's rows is named with the options that fix it.
  r = run_script("fidelity32_h2o_pairs.py", args + " --selector streamingllm");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("fidelity32_h2o/fidelity.csv: no streamingllm and streamingllm:ripple rows") &&
                           Contains("(--run, --selector)"));
}

TEST_CASE("profile_compare.py: two profiles' layer ranking and the budgets their allocations move") {
  const auto root = ripplekv::test::scratch_dir("profile_compare", "run");
  auto write_profile = [&](const std::string& name, const std::vector<double>& means, const std::string& ckpt) {
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t i = 0; i < means.size(); ++i) layers.push_back({{"layer", i}, {"mean", means[i]}});
    ripplekv::test::write_text(root / name, nlohmann::json({{"format", "ripplekv-sensitivity-profile"},
                                                            {"model", {{"weights_fingerprint", ckpt}}},
                                                            {"layers", layers}})
                                                .dump());
    return "'" + (root / name).string() + "'";
  };
  const auto a = write_profile("a.json", {4, 3, 2, 1}, "ckpt1:x");
  const auto b = write_profile("b.json", {1, 2, 3, 4}, "ckpt1:x");
  // With allocate_stand_in's budgets at budget 5: r=2 gives A 8 6 4 2 and B 2 4 6 8, 16 of 40 tokens apart, 40.0%; r=8 min-max 64 of
  // 160, 40.0%; rank 42 34 26 18 against 18 26 34 42, 64 of 240, 26.7%; A against equal budgets
  // of 5: 8 of 40, 60 of 100, 100 of 140.
  auto r = run_script("profile_compare.py", a + " " + b + " --top 2 --budget 5 --allocate '" + allocate_stand_in(root) + "'");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Contains("Spearman of the per-layer mean KL: -1.000 (4 layers)"));
  CHECK_THAT(r.output, Contains("most sensitive layers, A: 0, 1; B: 3, 2"));
  CHECK_THAT(r.output, Contains("| B against A | 40.0% | 40.0% | 26.7% |"));
  CHECK_THAT(r.output, Contains("| A against equal budgets (for scale) | 20.0% | 60.0% | 71.4% |"));
  // Other layer counts, other checkpoints, a file that is no profile, --budget alone: refused.
  r = run_script("profile_compare.py", a + " " + write_profile("c.json", {1, 2, 3}, "ckpt1:x"));
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("has 4 layers") && Contains("3: profiles of one model only"));
  r = run_script("profile_compare.py", a + " " + write_profile("d.json", {1, 2, 3, 4}, "ckpt1:y"));
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("profiles of other checkpoints (ckpt1:x and ckpt1:y)"));
  ripplekv::test::write_text(root / "e.json", "{\"layers\": []}");
  r = run_script("profile_compare.py", a + " '" + (root / "e.json").string() + "'");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("not a ripplekv sensitivity profile"));
  r = run_script("profile_compare.py", a + " " + b + " --budget 5");
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("--budget is for --allocate BIN"));
}

TEST_CASE("gguf_weights.py: SmolLM2's weights rebuilt from its GGUF equal get_model.sh's, tensor for tensor") {
  const fs::path model = ripplekv::test::real_model("smollm2-135m-instruct");
  // get_model.sh keeps the verified GGUF it converted, named in the model's README.md.
  std::ifstream readme(model / "README.md");
  std::string line, name;
  while (std::getline(readme, line)) {
    if (line.rfind("- GGUF: `", 0) == 0) name = line.substr(9, line.find('`', 9) - 9);
  }
  REQUIRE(!name.empty());
  const fs::path gguf = model.parent_path() / "downloads" / name;
  REQUIRE(fs::exists(gguf));
  const auto digest = run_script("device/gguf_weights.py", "--digest '" + (model / "model.safetensors").string() + "'");
  INFO(digest.output);
  REQUIRE(digest.status == 0);
  const std::string hex = digest.output.substr(0, 64);
  REQUIRE(hex.find_first_not_of("0123456789abcdef") == std::string::npos);
  const auto out = ripplekv::test::scratch_dir("gguf_weights", "rebuilt") / "model.safetensors";
  const auto r = run_script("device/gguf_weights.py",
                            "--gguf '" + gguf.string() + "' --out '" + out.string() + "' --expect " + hex);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("272 tensors, digest " + hex));
  // The digest of the file written equals the one expected (read back, not the rebuild's own).
  const auto again = run_script("device/gguf_weights.py", "--digest '" + out.string() + "'");
  CHECK(again.output.substr(0, 64) == hex);
  fs::remove(out);
  // A missing GGUF is an error naming it.
  const auto bad = run_script("device/gguf_weights.py", "--gguf /nonexistent.gguf --out '" + out.string() + "'");
  CHECK(bad.status != 0);
  CHECK_THAT(bad.output, Contains("--gguf /nonexistent.gguf: no such file"));
  CHECK(!fs::exists(out));
}

TEST_CASE("headline.py: the results at a glance, read from `ripplekv table` outputs") {
  const auto root = ripplekv::test::scratch_dir("headline", "specs");
  const std::string S = std::string(RIPPLEKV_SOURCE_DIR) + "/results/smollm2-135m-instruct/";
  auto write_spec = [&](const std::string& name, const std::string& text) {
    std::ofstream(root / name) << "[columns]\ndefault_title = D\nstrong_title = R\n\n" << text;
    return "'" + (root / name).string() + "'";
  };

  SECTION("committed tables: every cell is the CSVs' figures, the verdicts counted") {
    const auto spec = write_spec("ok.ini",
                                 "[RULER 4k]\ntables = " + S + "h200_ruler4k_pooled/tables\nbudgets = 128, 1024\n"
                                 "default = RippleKV (r=2, normalize=minmax)\nstrong = RippleKV (r=8, normalize=rank)\n\n"
                                 "[Fidelity]\nkind = fidelity\ntables = " + S + "fidelity_layer_mean_f32/tables\n"
                                 "default = RippleKV (r=2, normalize=minmax)\nstrong = RippleKV (r=8, normalize=rank)\n");
    const auto tex = root / "ok.tex";
    const auto r = run_script("headline.py", spec + " --latex '" + tex.string() + "'");
    INFO(r.output);
    REQUIRE(r.status == 0);
    // paired.csv: r=2 at 128 against CAKE +3.7565 [+1.9487, +5.5593], a win; SnapKV, the twin, too.
    CHECK_THAT(r.output, Contains("| RULER 4k | 128 | 35.38 | CAKE 4.90 | **8.66 (+3.76 [+1.95, +5.56]) win**; SnapKV: win |"));
    CHECK_THAT(r.output, Contains("| 1024 |  | CAKE 13.54 | **17.29 (+3.75 [+1.78, +5.81]) win**; SnapKV: win |"));
    // Fidelity: lower is better, three decimals; only the budgets both settings ran (128, 256).
    CHECK_THAT(r.output, Contains("| Fidelity | 128 | 0 (by definition) | H2O 0.235 | **0.394 (+0.159 [+0.019, +0.332]) loss**"));
    CHECK_THAT(r.output, Contains("0.261 (+0.088 [-0.007, +0.209]) tie; SnapKV: win"));
    CHECK_THAT(r.output, !Contains("| 64 |"));
    CHECK_THAT(r.output, Contains("- D against the best baseline: 2 wins, 1 tie, 1 loss; against its uniform twin: 4 wins, 0 ties, 0 losses"));
    CHECK_THAT(r.output, Contains("- R against the best baseline: 2 wins, 1 tie, 1 loss; against its uniform twin: 3 wins, 1 tie, 0 losses"));
    // The same rows in LaTeX: a win in bold, "%" escaped, one \midrule between benchmarks.
    const std::string latex = ripplekv::test::read_text(tex);
    CHECK_THAT(latex, Contains("RULER 4k & 128 & 35.38 & CAKE 4.90 & \\textbf{8.66 (+3.76 [+1.95, +5.56]) win}; SnapKV: win"));
    CHECK_THAT(latex, Contains("[95\\% bootstrap interval]"));
    CHECK_THAT(latex, Contains("\\midrule\nFidelity & 128 & 0 (by definition) & H2O 0.235"));
    CHECK_THAT(latex, Contains("\\bottomrule\n\\end{tabular}}\n\\end{table*}"));
    // --readme replaces what stands between the markers, and only that.
    const auto readme = root / "README.md";
    std::ofstream(readme) << "intro\n<!-- headline.py: begin -->\nold table\n<!-- headline.py: end -->\nafter\n";
    const auto put = run_script("headline.py", spec + " --readme '" + readme.string() + "'");
    REQUIRE(put.status == 0);
    CHECK(ripplekv::test::read_text(readme) == "intro\n<!-- headline.py: begin -->\n" + r.output + "<!-- headline.py: end -->\nafter\n");
    std::ofstream(readme) << "no markers\n";
    const auto bad = run_script("headline.py", spec + " --readme '" + readme.string() + "'");
    CHECK(bad.status != 0);
    CHECK_THAT(bad.output, Contains("expected one line '<!-- headline.py: begin -->' and, after it, one line"));
  }

  SECTION("a setting from another folder names its own best baseline where it is not the row's") {
    const auto spec = write_spec("other.ini",
                                 "[LB]\ntables = " + S + "longbench_r8_rank/tables\nbudgets = 512\n"
                                 "full_tables = " + S + "longbench/tables\n"
                                 "default = RippleKV (r=2, normalize=minmax)\nstrong = RippleKV (r=8, normalize=rank, profile=layer_mean_eps0.1_seed0_texts0-7_f32.json)\n"
                                 "strong_tables = " + S + "longbench_pairs/tables\n");
    const auto r = run_script("headline.py", spec);
    INFO(r.output);
    REQUIRE(r.status == 0);
    CHECK_THAT(r.output, Contains("| LB | 512 | 15.12 | SnapKV "));
    CHECK_THAT(r.output, Contains("] vs H2O 15.95) tie"));  // longbench_pairs pairs with H2O at 512
    // The same baseline name from another run (another folder, other threads) is named with its score.
    const std::string Q = std::string(RIPPLEKV_SOURCE_DIR) + "/results/qwen2.5-coder-1.5b-instruct/";
    const auto same_name = run_script("headline.py", write_spec("same.ini",
        "[F]\nkind = fidelity\ntables = " + Q + "fidelity_layer_mean_f32/tables\nbudgets = 128\ndefault = RippleKV\n"
        "strong = RippleKV\nstrong_tables = " + Q + "fidelity_layer_mean_f32_r8_rank/tables\n"));
    INFO(same_name.output);
    REQUIRE(same_name.status == 0);
    CHECK_THAT(same_name.output, Contains("| F | 128 | 0 (by definition) | SnapKV 0.533 | **0.615 (+0.082 [+0.022, +0.160]) loss**; SnapKV: loss |"));
    CHECK_THAT(same_name.output, Contains("**0.692 (+0.154 [+0.069, +0.263] vs SnapKV 0.537) loss**"));
  }

  SECTION("a setting the benchmark did not run (none): its cells say so and count in neither tally") {
    const auto r = run_script("headline.py", write_spec("none.ini", "[X]\ntables = " + S + "h200_ruler4k_pooled/tables\n"
                                                                    "default = none\nstrong = RippleKV (r=8, normalize=rank)\n"));
    INFO(r.output);
    REQUIRE(r.status == 0);
    // Every budget the one setting ran; paired.csv: r=8 rank at 128 against CAKE +4.04 [+1.96, +6.00].
    CHECK_THAT(r.output, Contains("| X | 128 | 35.38 | CAKE 4.90 | not run | **8.94 (+4.04 [+1.96, +6.00]) win**; SnapKV: win |"));
    CHECK_THAT(r.output, Contains("| 512 |  | SnapKV 10.87 | not run | 11.80 (+0.94 [-0.30, +2.20]) tie; SnapKV: tie |"));
    CHECK_THAT(r.output, Contains("- D against the best baseline: 0 wins, 0 ties, 0 losses; against its uniform twin: 0 wins, 0 ties, 0 losses"));
    CHECK_THAT(r.output, Contains("- R against the best baseline: 3 wins, 1 tie, 0 losses"));
    // A folder without the uniform twin (`table` writes "-"): the cell names none.
    const std::string Q = std::string(RIPPLEKV_SOURCE_DIR) + "/results/qwen2.5-coder-1.5b-instruct/";
    const auto no_twin = run_script("headline.py", write_spec("none_twin.ini", "[C]\ntables = " + Q + "ruler4k_confirm/tables\n"
                                                                             "default = none\nstrong = RippleKV\n"));
    INFO(no_twin.output);
    REQUIRE(no_twin.status == 0);
    CHECK_THAT(no_twin.output, Contains("| 1024 |  | CAKE 78.61 | not run | 77.38 (-1.23 [-2.86, +0.38]) tie |\n"));
    CHECK_THAT(no_twin.output, Contains("- R against the best baseline: 0 wins, 1 tie, 1 loss; against its uniform twin: 0 wins, 0 ties, 0 losses"));
    const auto both = run_script("headline.py", write_spec("none2.ini", "[X]\ntables = " + S + "h200_ruler4k_pooled/tables\n"
                                                                        "default = none\nstrong = none\n"));
    CHECK(both.status != 0);
    CHECK_THAT(both.output, Contains("default and strong are both 'none'; name at least one setting"));
  }

  SECTION("bad input: a label the folder lacks, an unknown kind, a missing folder") {
    auto r = run_script("headline.py", write_spec("label.ini", "[X]\ntables = " + S + "h200_ruler4k_pooled/tables\n"
                                                               "default = RippleKV (r=3)\nstrong = RippleKV (r=8, normalize=rank)\n"));
    CHECK(r.status != 0);
    CHECK_THAT(r.output, Contains("[X]: no budget that both 'RippleKV (r=3)' and"));
    r = run_script("headline.py", write_spec("label2.ini", "[X]\ntables = " + S + "h200_ruler4k_pooled/tables\nbudgets = 256\n"
                                                           "default = RippleKV (r=3)\nstrong = RippleKV (r=8, normalize=rank)\n"));
    CHECK(r.status != 0);
    CHECK_THAT(r.output, Contains("paired.csv has no paired row 'RippleKV (r=3)' at budget 256 (it holds ['RippleKV (r=2, normalize=minmax)',"));
    r = run_script("headline.py", write_spec("kind.ini", "[X]\nkind = kl\ntables = t\ndefault = a\nstrong = b\n"));
    CHECK(r.status != 0);
    CHECK_THAT(r.output, Contains("[X] in "));
    CHECK_THAT(r.output, Contains("kind = 'kl'; use ruler (scores) or fidelity (KL)"));
    r = run_script("headline.py", write_spec("missing.ini", "[X]\ntables = " + (root / "nowhere").string() + "\ndefault = a\nstrong = b\n"));
    CHECK(r.status != 0);
    CHECK_THAT(r.output, Contains("nowhere/longbench.csv is missing; write it with `ripplekv table --runs RUNS --out"));
  }

  SECTION("results/headline.md is the shipped spec's output (rerun the script after new tables)") {
    const fs::path source = RIPPLEKV_SOURCE_DIR;
    const auto tex = root / "shipped.tex";
    const auto r = run_script("headline.py", "'" + (source / "configs/results/headline.ini").string() + "' --latex '" +
                                                 tex.string() + "'");
    INFO(r.output);
    REQUIRE(r.status == 0);
    REQUIRE(fs::exists(source / "results/headline.md"));
    const std::string text = ripplekv::test::read_text(source / "results/headline.md");
    CHECK(text == r.output);
    CHECK(ripplekv::test::read_text(source / "results/headline.tex") == ripplekv::test::read_text(tex));
    // and the README's results at a glance holds that table
    CHECK_THAT(ripplekv::test::read_text(source / "README.md"), Contains(text));
  }
}

TEST_CASE("confirm_run.sh: two shards resumed until every prompt is predicted, then the table once") {
  // A stand-in for build/ripplekv: `ruler --shard I/2` records its command line, then predicts
  // the samples I owns (every second one) that its shard file lacks, or fails where FAKE_FAIL
  // names its shard; once both shard files hold every sample it writes each variant folder's
  // result.json as scoring would, except cake_b1024's where FAKE_UNSCORED is set (a stop during
  // scoring). `table` records its arguments. The script itself also runs
  // scripts/get_ruler_data.sh (scripts/test.sh fetches the word lists before ctest), /usr/bin/time
  // and lscpu.
  const auto root = ripplekv::test::scratch_dir("confirm_run", "resume");
  const auto fake = root / "fake_ripplekv";
  ripplekv::test::write_text(fake, R"SH(#!/usr/bin/env bash
set -euo pipefail
cmd=$1; shift
echo "$cmd $*" >> "$(dirname "$0")/calls.txt"
declare -A opt
while [ $# -gt 0 ]; do opt[$1]=$2; shift 2; done
out=${opt[--out]}
if [ "$cmd" = table ]; then mkdir -p "$out"; echo "table --resamples ${opt[--resamples]} --runs ${opt[--runs]}" > "$out/args.txt"; exit 0; fi
shard=${opt[--shard]%/2}
[ "${FAKE_FAIL:-}" != "$shard" ] || { echo "shard $shard stopped" >&2; exit 3; }
dir=$out/full/${opt[--lengths]}/shards
mkdir -p "$dir"
echo '{"info": {"cpu_kernels": "fake_kernels"}}' > "$out/full/config.json"
mkdir -p "$out/cake_b1024" "$out/data"; echo '{}' > "$out/cake_b1024/config.json"
file=$dir/t.shard-$shard-of-2.jsonl
touch "$file"
for ((k = shard; k < ${opt[--samples]}; k += 2)); do
  grep -q "\"index\":$k," "$file" || echo "{\"index\":$k,\"pred\":\"p\"}" >> "$file"
done
if [ "$(cat "$dir"/*.jsonl | sort -u | wc -l)" -eq "${opt[--samples]}" ]; then
  echo '{}' > "$out/full/result.json"
  [ -n "${FAKE_UNSCORED:-}" ] || echo '{}' > "$out/cake_b1024/result.json"
fi
)SH");
  fs::permissions(fake, fs::perms::owner_all);
  const auto dir = root / "run";
  const auto run = [&](const std::string& env, const std::string& args) {
    return ripplekv::test::run_command(
        "cd '" + std::string(RIPPLEKV_SOURCE_DIR) + "' && " + env + " BIN='" + fake.string() + "' MODEL=m LOGS='" +
        (root / "logs").string() + "' NAME=t.sh DIR='" + dir.string() +
        "' LENGTH=64 SAMPLES=3 SEED=1 TASKS=1 BUDGETS=1 METHODS=full bash -c "
        "'set -euo pipefail; source scripts/results/confirm_run.sh; confirm_main \"$@\"' _ " + args);
  };
  const auto wall_times = dir / "wall_times.txt";

  // The first call: shard 0 predicts samples 0 and 2, shard 1 stops; no table, a failed exit.
  auto r = run("FAKE_FAIL=1", "");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Contains("t.sh: 2 of 3 prompts done; rerun to resume"));
  CHECK_FALSE(fs::exists(dir / "tables"));
  CHECK_THAT(ripplekv::test::read_text(wall_times), Contains("exit 3"));
  CHECK_THAT(ripplekv::test::read_text(wall_times), Contains("kernels fake_kernels ("));
  CHECK(run("", "status").output == "2 of 3 prompts predicted in " + (dir / "runs").string() + "\n");

  // The second call resumes: shard 1 predicts sample 1, but a variant's scoring is stopped:
  // every prompt is predicted, and still no table.
  r = run("FAKE_UNSCORED=1", "");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("t.sh: all 3 prompts are predicted, but " + (dir / "runs" / "cake_b1024").string() +
                                " has no result.json (its scoring did not finish); rerun to score"));
  CHECK_FALSE(fs::exists(dir / "tables"));

  // The third call scores, and the table is made over runs/.
  r = run("", "");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(ripplekv::test::read_text(dir / "tables" / "args.txt") ==
        "table --resamples 100000 --runs " + (dir / "runs").string() + "\n");
  CHECK(ripplekv::test::read_text(dir / "runs/full/64/shards/t.shard-0-of-2.jsonl") ==
        "{\"index\":0,\"pred\":\"p\"}\n{\"index\":2,\"pred\":\"p\"}\n");
  CHECK_THAT(ripplekv::test::read_text(wall_times), Contains("3 of 3 prompts done"));
  CHECK_THAT(ripplekv::test::read_text(wall_times), Contains(", binary sha256 "));
  // the fixed command, once per shard and call
  const std::string calls = ripplekv::test::read_text(root / "calls.txt");
  for (const std::string shard : {"0", "1"}) {
    const std::string line = "ruler --model m --dtype bfloat16 --threads 1 --lengths 64 --samples 3 --seed 1 "
                             "--budgets 1 --methods full --shard " + shard + "/2 --out " + (dir / "runs").string() + "\n";
    size_t count = 0;
    for (size_t at = calls.find(line); at != std::string::npos; at = calls.find(line, at + 1)) ++count;
    CHECK(count == 3);
  }

  // Bad input: an unknown argument, a missing program.
  r = run("", "stauts");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("t.sh: unknown argument stauts (none, or status)"));
  r = ripplekv::test::run_command("cd '" + std::string(RIPPLEKV_SOURCE_DIR) + "' && BIN=/nonexistent/ripplekv NAME=t.sh "
                                  "bash -c 'source scripts/results/confirm_run.sh; confirm_main'");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("t.sh: /nonexistent/ripplekv is missing: run scripts/setup.sh first (or set BIN)"));
}
