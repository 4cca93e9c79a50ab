// Resumable prediction files, shards and the run folder's config.json.
#include <catch2/catch.hpp>

#include <fstream>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "eval/arithmetic_changes.h"
#include "eval/longbench_predictions.h"
#include "eval/longbench_run.h"
#include "eval/progress_bar.h"
#include "eval/run_config.h"
#include "eval/run_state.h"
#include "../eval_test_paths.h"

using namespace ripplekv::eval;
namespace fs = std::filesystem;

namespace {

Sample make_sample(const std::string& id, const std::string& answer = "a") {
  Sample s;
  s.id = id;
  s.dataset = "hotpotqa";
  s.answers = {answer};
  s.length = 42;
  return s;
}

std::vector<Sample> make_samples(int n) {
  std::vector<Sample> out;
  for (int i = 0; i < n; ++i) out.push_back(make_sample("id" + std::to_string(i), "ans" + std::to_string(i)));
  return out;
}

std::vector<std::string> ids_of(const std::vector<Sample>& samples) {
  std::vector<std::string> out;
  for (const auto& s : samples) out.push_back(s.id);
  return out;
}

void append_raw(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::app);
  out << bytes;
}

}  // namespace

TEST_CASE("prediction lines: pred.py keys plus _id, readable by the scorer", "[eval][run]") {
  auto s = make_sample("x1", "Paris");
  s.all_classes = std::vector<std::string>{"A", "B"};
  const auto line = prediction_line(s, "Paris é\n");
  CHECK(line ==
        R"({"pred":"Paris é\n","answers":["Paris"],"all_classes":["A","B"],"length":42,"_id":"x1"})");
  s.length.reset();
  CHECK(prediction_line(s, "p").find(R"("length":null)") != std::string::npos);
  // Invalid UTF-8 (a byte-fallback token cut mid-character) is replaced, not an exception.
  CHECK(prediction_line(s, std::string("ab\xE2\x82", 4)).find("\xEF\xBF\xBD") != std::string::npos);

  const auto dir = test::scratch_dir("run_lines");
  {
    PredictionFile f(dir / "hotpotqa.jsonl");
    f.append(make_sample("a"), "x");
    f.append(s, "y");
  }
  const auto records = load_predictions_jsonl(dir / "hotpotqa.jsonl");
  REQUIRE(records.size() == 2);
  CHECK(records[1].pred == "y");
  CHECK(records[1].all_classes->size() == 2);
}

TEST_CASE("resume after a kill: a torn last line is dropped and redone, nothing duplicated", "[eval][run]") {
  const auto dir = test::scratch_dir("run_resume");
  const auto path = dir / "hotpotqa.jsonl";
  const auto samples = make_samples(4);
  {
    PredictionFile f(path);
    CHECK(f.size() == 0);
    f.append(samples[0], "p0");
    f.append(samples[1], "p1");
    CHECK_THROWS_AS(f.append(samples[1], "again"), std::logic_error);
  }
  const auto good_size = fs::file_size(path);
  // The process was killed in the middle of writing the third line.
  const auto third = prediction_line(samples[2], "p2");
  append_raw(path, third.substr(0, third.size() / 2));

  std::vector<std::string> warnings;
  {
    PredictionFile f(path, [&](const std::string& w) { warnings.push_back(w); });
    CHECK(f.dropped_torn_line());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("hotpotqa.jsonl:3") != std::string::npos);
    CHECK(warnings[0].find("torn") != std::string::npos);
    CHECK(fs::file_size(path) == good_size);  // truncated back to the last complete line
    CHECK(f.size() == 2);
    CHECK(f.has("id0"));
    CHECK(f.has("id1"));
    CHECK_FALSE(f.has("id2"));
    for (const auto& s : samples) {
      if (!f.has(s.id)) f.append(s, "p-" + s.id);
    }
  }
  const auto ids = read_prediction_ids(path);
  REQUIRE(ids);
  CHECK(*ids == ids_of(samples));
  CHECK(prediction_file_complete(path, ids_of(samples)));
  CHECK(load_predictions_jsonl(path).size() == 4);
  {
    // Another task's records (fidelity's carry "kl", not "pred") are read by their own key.
    const auto kl = path.parent_path() / "kl_records.jsonl";
    std::ofstream(kl) << "{\"_id\":\"a\",\"kl\":0.5}\n{\"_id\":\"b\",\"kl\":0.25}\n";
    CHECK_THROWS_WITH(read_prediction_ids(kl), Catch::Contains("pred"));
    CHECK(read_prediction_ids(kl, "kl") == std::vector<std::string>{"a", "b"});
    fs::remove(kl);
  }

  // A complete but unparseable last line (a partial write that happened to end in '\n'
  // cannot occur with one write(), but a damaged disk block can) is dropped as well.
  append_raw(path, "{\"pred\": \"x\", \"_i\n");
  warnings.clear();
  PredictionFile again(path, [&](const std::string& w) { warnings.push_back(w); });
  CHECK(again.size() == 4);
  CHECK(warnings.size() == 1);
}

TEST_CASE("damaged prediction files are errors with file:line and a fix", "[eval][run]") {
  const auto dir = test::scratch_dir("run_damaged");
  const auto s = make_samples(2);
  SECTION("bad line in the middle") {
    append_raw(dir / "a.jsonl", prediction_line(s[0], "p") + "\n{oops\n" + prediction_line(s[1], "p") + "\n");
    CHECK_THROWS_WITH(PredictionFile(dir / "a.jsonl"), Catch::Contains("a.jsonl:2") && Catch::Contains("delete"));
  }
  SECTION("duplicate _id") {
    append_raw(dir / "b.jsonl", prediction_line(s[0], "p") + "\n" + prediction_line(s[0], "q") + "\n");
    CHECK_THROWS_WITH(PredictionFile(dir / "b.jsonl"), Catch::Contains("b.jsonl:2") && Catch::Contains("line 1"));
  }
  SECTION("a pred.py file without _id") {
    append_raw(dir / "c.jsonl", R"({"pred": "x", "answers": ["y"], "all_classes": null, "length": 3})" "\n");
    CHECK_THROWS_WITH(PredictionFile(dir / "c.jsonl"), Catch::Contains("_id") && Catch::Contains("--out"));
  }
}

TEST_CASE("shard i/n parsing and ownership", "[eval][run]") {
  const auto s = parse_shard("1/3");
  CHECK(s.index == 1);
  CHECK(s.count == 3);
  CHECK(s.owns(1));
  CHECK(s.owns(4));
  CHECK_FALSE(s.owns(2));
  CHECK_THROWS_WITH(parse_shard("3/3"), Catch::Contains("0 <= i < n"));
  CHECK_THROWS_WITH(parse_shard("1-3"), Catch::Contains("0/4"));
  CHECK_THROWS(parse_shard("0/0"));
  CHECK(prediction_path("out", "trec", Shard{}) == fs::path("out") / "trec.jsonl");
  CHECK(prediction_path("out", "trec", s) == fs::path("out") / "shards" / "trec.shard-1-of-3.jsonl");
}

TEST_CASE("shards merge into the original order, missing or duplicated samples are errors", "[eval][run]") {
  const auto dir = test::scratch_dir("run_merge");
  const auto samples = make_samples(7);
  const auto ids = ids_of(samples);
  // Shards finish in any order; shard 1 is written back to front.
  for (int i : {2, 0, 1}) {
    const Shard shard{i, 3};
    PredictionFile f(prediction_path(dir, "hotpotqa", shard));
    std::vector<const Sample*> mine;
    for (std::size_t k = 0; k < samples.size(); ++k) {
      if (shard.owns(k)) mine.push_back(&samples[k]);
    }
    if (i == 1) std::reverse(mine.begin(), mine.end());
    for (const auto* s : mine) {
      if (i == 2 && s->id == "id5") continue;  // shard 2 not finished yet
      f.append(*s, "pred of " + s->id);
    }
  }
  CHECK(shard_counts_present(dir, "hotpotqa") == std::vector<int>{3});
  CHECK_THROWS_WITH(merge_shards(dir, "hotpotqa", 3, ids),
                    Catch::Contains("id5") && Catch::Contains("shard 2/3") && Catch::Contains("missing"));

  // The same sample in two shards.
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 3}));
    f.append(samples[5], "stray");
  }
  CHECK_THROWS_WITH(merge_shards(dir, "hotpotqa", 3, ids), Catch::Contains("id5") && Catch::Contains("belongs to"));
  fs::remove(prediction_path(dir, "hotpotqa", Shard{0, 3}));
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 3}));
    for (int k : {0, 3, 6}) f.append(samples[static_cast<std::size_t>(k)], "pred of id" + std::to_string(k));
  }
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{2, 3}));
    f.append(samples[5], "pred of id5");
  }
  const auto merged = merge_shards(dir, "hotpotqa", 3, ids);
  CHECK(merged == dir / "hotpotqa.jsonl");
  CHECK(*read_prediction_ids(merged) == ids);
  const auto records = load_predictions_jsonl(merged);
  REQUIRE(records.size() == 7);
  for (std::size_t k = 0; k < 7; ++k) CHECK(records[k].pred == "pred of id" + std::to_string(k));
  CHECK_THROWS_WITH(merge_shards(dir, "hotpotqa", 4, ids), Catch::Contains("shard-0-of-4") && Catch::Contains("missing"));

  // Shard files of a second count: an error naming both counts, not a wait for shards that never come.
  CHECK(sole_shard_count(dir, "hotpotqa") == std::optional<int>(3));
  CHECK(sole_shard_count(dir, "qasper") == std::nullopt);
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 2}));
    f.append(samples[0], "pred of id0");
  }
  CHECK_THROWS_WITH(sole_shard_count(dir, "hotpotqa"),
                    Catch::Contains("hotpotqa") && Catch::Contains("2 shard counts (2, 3)"));
  CHECK(complete_or_merge(dir, "hotpotqa", ids));  // the merged file is complete: the shards are not read
  auto more_ids = ids;
  more_ids.push_back("id7");
  CHECK_THROWS_WITH(complete_or_merge(dir, "hotpotqa", more_ids), Catch::Contains("2 shard counts (2, 3)"));
  CHECK(*read_prediction_ids(merged) == ids);  // left as it was
  // A whole run copies from the shard files of both counts while they agree, and stops where
  // two of them hold different lines for one sample.
  CHECK(predictions_in_other_files(dir, "hotpotqa", Shard{}).size() == 7);
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 2}));
    f.append(samples[2], "another pred of id2");
  }
  CHECK_THROWS_WITH(predictions_in_other_files(dir, "hotpotqa", Shard{}),
                    Catch::Contains("hotpotqa.shard-0-of-2.jsonl and ") &&
                        Catch::Contains("hotpotqa.shard-2-of-3.jsonl hold different predictions for sample _id \"id2\""));
}

TEST_CASE("complete_or_merge: a merge never replaces a whole-run line the shards disagree with", "[eval][run]") {
  const auto dir = test::scratch_dir("run_merge_conflict");
  const auto samples = make_samples(3);
  const auto ids = ids_of(samples);
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{}));
    f.append(samples[0], "pred of id0");
    f.append(samples[1], "a whole run's pred of id1");
  }
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 2}));
    f.append(samples[0], "pred of id0");
    f.append(samples[2], "pred of id2");
  }
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{1, 2}));
    f.append(samples[1], "a shard's pred of id1");
  }
  const auto before = test::read_text(prediction_path(dir, "hotpotqa", Shard{}));
  CHECK_THROWS_WITH(complete_or_merge(dir, "hotpotqa", ids),
                    Catch::Contains("hold different predictions for sample _id \"id1\""));
  CHECK(test::read_text(prediction_path(dir, "hotpotqa", Shard{})) == before);
  // With the whole run's file moved away, the shards merge.
  fs::remove(prediction_path(dir, "hotpotqa", Shard{}));
  CHECK(complete_or_merge(dir, "hotpotqa", ids));
  CHECK(*read_prediction_ids(prediction_path(dir, "hotpotqa", Shard{})) == ids);
}

TEST_CASE("finish_run_dir: waits for shards, then merges and scores", "[eval][run]") {
  const auto dir = test::scratch_dir("run_finish");
  TaskSamples t;
  t.task = &find_longbench_task("hotpotqa");
  t.samples = make_samples(3);
  const std::vector<TaskSamples> tasks{t};
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 2}));
    f.append(t.samples[0], "ans0");
    f.append(t.samples[2], "wrong");
  }
  auto r = finish_run_dir(dir, tasks, {});
  CHECK_FALSE(r.complete);
  REQUIRE(r.incomplete.size() == 1);
  CHECK(r.incomplete[0].find("1/2") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "result.json"));
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{1, 2}));
    f.append(t.samples[1], "ans1");
  }
  r = finish_run_dir(dir, tasks, {});
  REQUIRE(r.complete);
  REQUIRE(r.results.size() == 1);
  CHECK(r.results[0].sample_scores == std::vector<double>{1.0, 1.0, 0.0});
  CHECK(r.results[0].score == 66.67);
  CHECK(fs::exists(dir / "result.json"));
  CHECK(fs::exists(dir / "results.md"));
  CHECK(nlohmann::json::parse(test::read_text(dir / "result.json")).at("hotpotqa").get<double>() == 66.67);

  // Extended to 4 samples: the merge of 3 is an earlier merge, replaced once the shards are done.
  t.samples = make_samples(4);
  const std::vector<TaskSamples> more{t};
  CHECK_FALSE(whole_and_shards_disagree(dir, "hotpotqa", 2));
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{1, 2}));
    f.append(t.samples[3], "ans3");
  }
  r = finish_run_dir(dir, more, {});
  REQUIRE(r.complete);
  CHECK(r.results[0].sample_scores == std::vector<double>{1.0, 1.0, 0.0, 1.0});
  // An unsharded file with a prediction the shard files do not hold yet (an unsharded run's,
  // which shard 0/2 copies when it runs): the folder waits for both shards.
  t.samples = make_samples(5);
  {
    std::ofstream f(prediction_path(dir, "hotpotqa", Shard{}), std::ios::app);
    f << prediction_line(t.samples[4], "from elsewhere") << "\n";
  }
  CHECK_FALSE(whole_and_shards_disagree(dir, "hotpotqa", 2));
  t.samples = make_samples(6);  // and it is partial: 5 of 6
  r = finish_run_dir(dir, {t}, {});
  CHECK_FALSE(r.complete);
  REQUIRE(r.incomplete.size() == 1);
  CHECK(r.incomplete[0] == "hotpotqa: waiting for shards 0/2, 1/2");
  const auto copies = predictions_in_other_files(dir, "hotpotqa", Shard{0, 2});
  REQUIRE(copies.count("id4") == 1);
  CHECK(copies.at("id4") == prediction_line(t.samples[4], "from elsewhere"));
  // A shard file holding another line for that sample: two runs made them, and the error
  // names both files and the sample.
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 2}));
    f.append(t.samples[4], "ans4");
  }
  const auto conflict = whole_and_shards_disagree(dir, "hotpotqa", 2);
  REQUIRE(conflict);
  CHECK(conflict->find("hotpotqa.shard-0-of-2.jsonl hold different predictions for sample _id \"id4\"") !=
        std::string::npos);
  CHECK_THROWS_WITH(finish_run_dir(dir, {t}, {}), Catch::Contains("hold different predictions for sample _id \"id4\""));
  {
    PredictionFile f(prediction_path(dir, "hotpotqa", Shard{0, 3}));
    f.append(t.samples[0], "ans0");
  }
  CHECK_THROWS_WITH(finish_run_dir(dir, {t}, {}), Catch::Contains("2 shard counts (2, 3)"));
}

TEST_CASE("config.json: written once, matched on rerun, a different run is an error naming the keys", "[eval][run]") {
  const auto dir = test::scratch_dir("run_config");
  nlohmann::ordered_json run = {{"model", "/m"}, {"prompt", {{"max_input_tokens", 3500}, {"chat_template", "llama2"}}}};
  CHECK(claim_run_dir(dir, run, {{"note", "first"}}) == RunDirState::kCreated);
  CHECK(claim_run_dir(dir, run, {{"note", "info may differ"}}) == RunDirState::kMatches);
  CHECK(read_run_config(dir).at("model") == "/m");
  auto other = run;
  other["prompt"]["max_input_tokens"] = 7950;
  other["method"] = {{"selector", "snapkv"}};
  try {
    claim_run_dir(dir, other, {});
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("prompt.max_input_tokens: 3500 there, 7950 now") != std::string::npos);
    CHECK(msg.find("method") != std::string::npos);
    CHECK(msg.find("--out") != std::string::npos);
  }
  CHECK(read_run_config(dir).at("prompt").at("max_input_tokens") == 3500);  // untouched
  CHECK_THROWS_WITH(read_run_config(dir / "nope"), Catch::Contains("config.json"));
}

TEST_CASE("config.json: more samples of the same data extend the folder - fewer or other data are refused",
          "[eval][run]") {
  const auto dir = test::scratch_dir("run_config_extend");
  auto run_with = [](int64_t max_samples, int64_t qasper, int64_t trec, const std::string& trec_file = "/d/trec.jsonl") {
    return nlohmann::ordered_json{{"model", "/m"},
                                  {"data",
                                   {{"qasper", {{"file", "/d/qasper.jsonl"}, {"samples", qasper}}},
                                    {"trec", {{"file", trec_file}, {"samples", trec}}}}},
                                  {"max_samples", max_samples}};
  };
  CHECK(check_run_dir(dir, run_with(4, 4, 4), {}) == RunDirState::kCreated);  // nothing written
  CHECK_FALSE(fs::exists(dir / "config.json"));
  CHECK(claim_run_dir(dir, run_with(4, 4, 4), {{"note", "first"}}) == RunDirState::kCreated);
  CHECK_FALSE(extended_by_another_run(dir, run_with(4, 4, 4)));
  CHECK_FALSE(extended_by_another_run(dir / "no_config_here", run_with(4, 4, 4)));
  // 8 asked and trec has only 6: both counts were cut at 4 and grow. A check writes nothing;
  // the claim rewrites the config.
  CHECK(check_run_dir(dir, run_with(8, 8, 6), {}) == RunDirState::kExtended);
  CHECK(read_run_config(dir).at("max_samples") == 4);
  CHECK(claim_run_dir(dir, run_with(8, 8, 6), {{"note", "more"}}) == RunDirState::kExtended);
  CHECK(read_run_config(dir).at("max_samples") == 8);
  CHECK(read_run_config(dir).at("data").at("trec").at("samples") == 6);
  // A run that claimed the 4 before this extension leaves the scores to the extending run.
  CHECK(extended_by_another_run(dir, run_with(4, 4, 4)));
  CHECK_FALSE(extended_by_another_run(dir, run_with(8, 8, 6)));
  CHECK_FALSE(extended_by_another_run(dir, run_with(9, 8, 6)));  // the same samples under a larger cap
  CHECK_FALSE(extended_by_another_run(dir, nlohmann::ordered_json{{"model", "/m"}, {"data", "ruler"}}));
  CHECK(claim_run_dir(dir, run_with(8, 8, 6), {}) == RunDirState::kMatches);
  // A cap that takes no more of any file: the same predictions, it matches (config untouched).
  CHECK(claim_run_dir(dir, run_with(9, 8, 6), {}) == RunDirState::kMatches);
  CHECK(read_run_config(dir).at("max_samples") == 8);
  // A smaller cap than the folder's: refused, with the fix.
  try {
    claim_run_dir(dir, run_with(4, 4, 4), {});
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK_THAT(e.what(), Catch::Contains("data.qasper.samples: 8 there, 4 now") &&
                             Catch::Contains("max_samples: 8 there, 4 now") &&
                             Catch::Contains("never fewer: give --max-samples (longbench) or --samples (ruler) as large as the folder's"));
  }
  // trec (6, under the cap of 8) grows under a larger cap: its file changed, not the cap.
  CHECK_THROWS_WITH(claim_run_dir(dir, run_with(10, 10, 7), {}),
                    Catch::Contains("data.trec.samples: 6 there, 7 now") && Catch::Contains("not the one the folder"));
  // One count grows while another shrinks: refused.
  CHECK_THROWS_WITH(claim_run_dir(dir, run_with(9, 9, 5), {}), Catch::Contains("data.trec.samples: 6 there, 5 now"));
  // More samples of another file: refused, the counts alone do not make it the same data.
  CHECK_THROWS_WITH(claim_run_dir(dir, run_with(10, 10, 10, "/other/trec.jsonl"), {}),
                    Catch::Contains("data.trec.file"));
  CHECK(read_run_config(dir).at("max_samples") == 8);  // untouched by the refusals
  // A folder that took every sample (max_samples 0) whose file has grown: the data changed.
  const auto all = test::scratch_dir("run_config_all");
  CHECK(claim_run_dir(all, run_with(0, 5, 5), {}) == RunDirState::kCreated);
  CHECK_THROWS_WITH(claim_run_dir(all, run_with(0, 6, 5), {}), Catch::Contains("not the one the folder"));
  CHECK(claim_run_dir(all, run_with(8, 5, 5), {}) == RunDirState::kMatches);  // a cap over 5 takes the same 5
}

TEST_CASE("config.json: RULER's generated samples extend the folder, a --data run's count does not", "[eval][run]") {
  const auto dir = test::scratch_dir("ruler_samples");
  auto run = [](int n, const char* data) {
    return nlohmann::ordered_json{{"benchmark", "ruler"}, {"samples", n}, {"seed", 42}, {"data", data}};
  };
  CHECK(claim_run_dir(dir / "g", run(2, "generated"), {}) == RunDirState::kCreated);
  CHECK(claim_run_dir(dir / "g", run(3, "generated"), {}) == RunDirState::kExtended);
  CHECK(claim_run_dir(dir / "g", run(3, "generated"), {}) == RunDirState::kMatches);
  CHECK_THROWS_WITH(check_run_dir(dir / "g", run(2, "generated"), {}),
                    Catch::Contains("samples: 3 there, 2 now") && Catch::Contains("--samples (ruler) as large"));
  CHECK(claim_run_dir(dir / "d", run(2, "/data/ruler"), {}) == RunDirState::kCreated);
  CHECK_THROWS_WITH(check_run_dir(dir / "d", run(3, "/data/ruler"), {}), Catch::Contains("samples: 2 there, 3 now"));
}

TEST_CASE("config.json: method options are compared as in force when both configs record them", "[eval][run]") {
  const auto dir = test::scratch_dir("run_config_in_force");
  auto run_with = [](nlohmann::ordered_json given) {
    return nlohmann::ordered_json{{"model", "/m"},
                                  {"method", {{"selector", "snapkv"}, {"allocator", "ripple"}, {"options", given}}}};
  };
  auto info_with = [](nlohmann::ordered_json in_force) {
    nlohmann::ordered_json info;
    info[kMethodOptionsKey] = in_force;
    return info;
  };
  const auto empty = nlohmann::ordered_json::object();
  CHECK(claim_run_dir(dir, run_with(empty), info_with({{"ratio", "2"}, {"window", "32"}})) == RunDirState::kCreated);
  // The same defaults: resumes. The folder's default given explicitly: resumes too.
  CHECK(claim_run_dir(dir, run_with(empty), info_with({{"ratio", "2"}, {"window", "32"}})) == RunDirState::kMatches);
  CHECK(claim_run_dir(dir, run_with({{"ratio", "2"}}), info_with({{"ratio", "2"}, {"window", "32"}})) ==
        RunDirState::kMatches);
  // An option added since (recorded only now, not given) does not block the resume.
  CHECK(claim_run_dir(dir, run_with(empty), info_with({{"ratio", "2"}, {"window", "32"}, {"new_key", "1"}})) ==
        RunDirState::kMatches);
  // A default that changed since the folder was written: an error naming the key and the fix.
  try {
    claim_run_dir(dir, run_with(empty), info_with({{"ratio", "4"}, {"window", "32"}}));
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    CHECK(msg.find("method.options.ratio: \"2\" there, \"4\" now") != std::string::npos);
    CHECK(msg.find("--method-opt ratio=2") != std::string::npos);
  }
  // A folder from before options in force were recorded compares the given options only.
  const auto old_dir = test::scratch_dir("run_config_in_force_legacy");
  CHECK(claim_run_dir(old_dir, run_with(empty), {{"note", "old"}}) == RunDirState::kCreated);
  CHECK(claim_run_dir(old_dir, run_with(empty), info_with({{"ratio", "4"}})) == RunDirState::kMatches);
  CHECK_THROWS_WITH(claim_run_dir(old_dir, run_with({{"ratio", "2"}}), info_with({{"ratio", "2"}})),
                    Catch::Contains("method.options.ratio"));
}

TEST_CASE("arithmetic_changes: one note per recorded key that differs, naming the setting that matches",
          "[eval][run]") {
  const auto dir = test::scratch_dir("arithmetic_changes");
  const nlohmann::ordered_json now = {{"threads", 2}, {"cpu_kernels", "aten+widened_bf16; ATen AVX2"}};
  CHECK(arithmetic_changes(dir, now).empty());  // no config.json: a new folder
  auto write_info = [&](const nlohmann::json& info) {
    std::ofstream(dir / "config.json") << nlohmann::json({{"run", nlohmann::json::object()}, {"info", info}}).dump();
  };
  write_info({{"method", "SnapKV"}});  // a folder made before either was recorded
  CHECK(arithmetic_changes(dir, now).empty());
  write_info(now);
  CHECK(arithmetic_changes(dir, now).empty());

  write_info({{"threads", 1}, {"cpu_kernels", "avx512; ATen AVX512"}});
  auto notes = arithmetic_changes(dir, now);
  REQUIRE(notes.size() == 2);
  CHECK_THAT(notes[0], Catch::Contains(dir.string() + ": started on 1 threads, resumed on 2") &&
                           Catch::Contains("(--threads 1 matches them)"));
  CHECK_THAT(notes[1], Catch::Contains("started with the CPU kernels avx512; ATen AVX512, resumed with "
                                       "aten+widened_bf16; ATen AVX2") &&
                           Catch::Contains("(RIPPLEKV_CPU_ISA=avx512 on an AVX-512 CPU matches them)"));
  write_info({{"threads", 2}, {"cpu_kernels", "aten; ATen AVX2"}});
  notes = arithmetic_changes(dir, now);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("(RIPPLEKV_CPU_ISA=none matches them)"));
  write_info({{"threads", 2}, {"cpu_kernels", "avx512_bf16; ATen AVX512"}});
  notes = arithmetic_changes(dir, now);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("(a CPU with those kernels matches them)"));
  // A run on a GPU records no kernels: a CPU folder resumed there gets no kernels note.
  CHECK(arithmetic_changes(dir, {{"threads", 2}}).empty());
  // The same kernels on another CPU: one note, naming both CPUs.
  write_info({{"threads", 2}, {"cpu_kernels", "avx512_bf16; ATen AVX512"}, {"cpu", "Intel(R) Xeon(R) Processor"}});
  const nlohmann::ordered_json epyc = {{"threads", 2}, {"cpu_kernels", "avx512_bf16; ATen AVX512"}, {"cpu", "AMD EPYC"}};
  notes = arithmetic_changes(dir, epyc);
  REQUIRE(notes.size() == 1);
  CHECK_THAT(notes[0], Catch::Contains("started on the CPU Intel(R) Xeon(R) Processor, resumed on AMD EPYC"));
  CHECK(arithmetic_changes(dir, {{"threads", 2}, {"cpu_kernels", "avx512_bf16; ATen AVX512"}}).empty());  // no CPU now
}

TEST_CASE("claim_run_dirs: every folder checked before any is claimed, then noted and claimed in order",
          "[eval][run]") {
  const auto root = test::scratch_dir("claim_run_dirs");
  const nlohmann::ordered_json run_a = {{"model", "/m"}, {"method", "a"}};
  auto run_b = [](int64_t samples) {
    return nlohmann::ordered_json{{"model", "/m"},
                                  {"data", {{"t", {{"file", "/d/t.jsonl"}, {"samples", samples}}}}},
                                  {"max_samples", samples}};
  };
  REQUIRE(claim_run_dir(root / "a", run_a, {{"threads", 3}}, "test_marker") == RunDirState::kCreated);
  REQUIRE(claim_run_dir(root / "b", run_b(1), {{"threads", 1}}, "test_marker") == RunDirState::kCreated);
  std::vector<std::string> events;  // notes and claims, in the order they came
  const WarningSink note = [&](const std::string& text) { events.push_back("note " + text); };
  const ClaimedRunDir claimed = [&](const RunDirClaim& c, RunDirState state) {
    events.push_back(fmt::format("claimed {} {}", c.dir.filename().string(), static_cast<int>(state)));
  };
  // c is new, b holds another model: refused before c is created or a is noted.
  auto other_b = run_b(2);
  other_b["model"] = "/other";
  CHECK_THROWS_WITH(claim_run_dirs({{root / "c", run_a, {{"threads", 2}}},
                                    {root / "a", run_a, {{"threads", 2}}},
                                    {root / "b", other_b, {{"threads", 2}}}},
                                   claimed, "test_marker", note),
                    Catch::Contains("model: \"/m\" there, \"/other\" now"));
  CHECK_FALSE(fs::exists(root / "c"));
  CHECK(events.empty());
  // On 2 threads: c is created; a (3 threads) matches; b (1 thread) takes more samples and is
  // extended, its config.json rewritten with 2 threads, so its note must come before its claim.
  claim_run_dirs({{root / "c", run_a, {{"threads", 2}}},
                  {root / "a", run_a, {{"threads", 2}}},
                  {root / "b", run_b(2), {{"threads", 2}}}},
                 claimed, "test_marker", note);
  REQUIRE(events.size() == 5);
  CHECK(events[0] == "claimed c " + std::to_string(static_cast<int>(RunDirState::kCreated)));
  CHECK_THAT(events[1], Catch::StartsWith("note " + (root / "a").string() + ": started on 3 threads, resumed on 2"));
  CHECK(events[2] == "claimed a " + std::to_string(static_cast<int>(RunDirState::kMatches)));
  CHECK_THAT(events[3], Catch::StartsWith("note " + (root / "b").string() + ": started on 1 threads, resumed on 2"));
  CHECK(events[4] == "claimed b " + std::to_string(static_cast<int>(RunDirState::kExtended)));
  CHECK(read_run_config(root / "b").at("max_samples") == 2);
  CHECK(nlohmann::json::parse(test::read_text(root / "c" / "config.json")).contains("test_marker"));
}

TEST_CASE("task lists and data files", "[eval][run]") {
  CHECK(parse_task_list("all").size() == 16);
  const auto two = parse_task_list(" trec , hotpotqa");
  REQUIRE(two.size() == 2);
  CHECK(two[0]->name == "trec");
  CHECK_THROWS_WITH(parse_task_list("trec,nope"), Catch::Contains("valid tasks"));
  CHECK_THROWS_WITH(parse_task_list("dureader"), Catch::Contains("jieba"));
  CHECK_THROWS_WITH(parse_task_list("trec,trec"), Catch::Contains("twice"));
  const auto mini = test::longbench_data_dir() / "mini";
  CHECK(find_task_file(mini, find_longbench_task("trec"), false).filename() == "MiniLongBench_trec.json");
  CHECK(find_task_file(test::longbench_data_dir() / "raw", find_longbench_task("multi_news"), false).filename() ==
        "multi_news.jsonl");
  CHECK_THROWS_WITH(find_task_file(test::longbench_data_dir() / "raw", find_longbench_task("trec"), false),
                    Catch::Contains("trec.jsonl") && Catch::Contains("MiniLongBench_trec.json"));
  // The folder above mini/ works too.
  CHECK(find_task_file(test::longbench_data_dir(), find_longbench_task("trec"), false) ==
        test::longbench_data_dir() / "mini" / "MiniLongBench_trec.json");
  CHECK_THROWS_WITH(find_task_file(mini, find_longbench_task("trec"), true), Catch::Contains("trec_e.jsonl"));
  const auto t = load_task_samples(mini, find_longbench_task("trec"), 3, false, {});
  CHECK(t.samples.size() == 3);
  CHECK(t.ids() == std::vector<std::string>{"0", "1", "2"});
}

TEST_CASE("progress line: counts, rates and ETA, plain lines off a terminal", "[eval][run]") {
  std::FILE* sink = std::tmpfile();
  REQUIRE(sink);
  {
    ProgressBar bar("trec", 10, 4, sink, /*tty=*/0, /*plain_interval_seconds=*/1e9);
    CHECK(bar.line().find("trec 4/10 (40%)") == 0);
    ProgressBar::SampleStats s;
    s.prompt_tokens = 1000;
    s.prefill_seconds = 0.5;
    s.generated_tokens = 50;
    s.decode_seconds = 1.25;
    s.wall_seconds = 2.0;
    bar.sample_done(s);
    bar.sample_done(s);
    CHECK(bar.line().find("6/10") != std::string::npos);
    CHECK(bar.line().find("prefill 2000.0 tok/s") != std::string::npos);
    CHECK(bar.line().find("decode 40.0 tok/s") != std::string::npos);
    CHECK(bar.line().find("ETA 8s") != std::string::npos);
    CHECK(bar.line().find("run") == std::string::npos);  // no whole run given
  }
  std::rewind(sink);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, sink)) text += buf;
  std::fclose(sink);
  CHECK(text.find('\r') == std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);  // the first line and the final state
  CHECK(format_duration(3725) == "1h02m");
  CHECK(format_duration(185) == "3m05s");
}

TEST_CASE("progress line: the whole run's count and ETA beside the task's", "[eval][run]") {
  std::FILE* runs = std::tmpfile();
  REQUIRE(runs);
  {
    // A run of 3 tasks: 6 samples left in this one (4 of 10 done earlier), 9 in all.
    RunProgress run;
    run.pending = 9;
    ProgressBar bar("trec", 10, 4, runs, /*tty=*/0, /*plain_interval_seconds=*/1e9, &run);
    CHECK(bar.line().find("; run 0/9, ETA ?") != std::string::npos);
    ProgressBar::SampleStats s;
    s.wall_seconds = 3.0;
    bar.sample_done(s);
    bar.sample_done(s);
    CHECK(run.run == 2);
    CHECK(run.wall_seconds == Approx(6.0));
    CHECK(bar.line().find("6/10") != std::string::npos);
    CHECK(bar.line().find("ETA 12s; run 2/9, ETA 21s") != std::string::npos);  // 4 x 3 s here, 7 x 3 s in all
    // With the prompt tokens known ahead, the run's time left goes by tokens: 2,000 of 18,000
    // took 6 s, so 48 s are left (not 21 s by samples, where later prompts are longer).
    RunProgress by_tokens;
    by_tokens.pending = 9;
    by_tokens.pending_tokens = 18000;
    ProgressBar longer("vt", 10, 4, runs, 0, 1e9, &by_tokens);
    s.prompt_tokens = 1000;
    longer.sample_done(s);
    longer.sample_done(s);
    CHECK(by_tokens.run_tokens == 2000);
    CHECK(longer.line().find("; run 2/9, ETA 48s") != std::string::npos);
    longer.finish();
    // A call of one task (its samples are all the call runs) shows no run part.
    RunProgress last;
    last.pending = 6;
    ProgressBar only("trec", 10, 4, runs, 0, 1e9, &last);
    CHECK(only.line().find("run") == std::string::npos);
    only.finish();
    bar.finish();
  }
  std::rewind(runs);
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, runs)) text += buf;
  std::fclose(runs);
  // Off a terminal: each bar's first line, and the stopped tasks' last states with the run's.
  CHECK(std::count(text.begin(), text.end(), '\n') == 5);
  CHECK(text.find("trec 6/10 (60%) prefill - tok/s, decode - tok/s, ETA 12s; run 2/9, ETA 21s\n") != std::string::npos);
}
