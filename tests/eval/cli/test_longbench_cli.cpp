// `ripplekv longbench` end to end on stories260K with MiniLongBench subsets: runs the built
// program (RIPPLEKV_BINARY) as a user would. The scores mean nothing for this model; the
// pipeline (prompts, generation, resume, shards, config check, scoring) must work.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/longbench_predictions.h"
#include "test_paths.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {

using Run = ripplekv::test::CommandResult;

Run run_ripplekv(const std::string& args) { return ripplekv::test::run_command(std::string(RIPPLEKV_BINARY) + " " + args); }

std::string read_text(const fs::path& path) { return ripplekv::test::read_text(path); }

// A path that does not exist yet (the program makes its --out folder), inside a scratch folder
// removed when the process exits.
fs::path scratch(const std::string& name) { return ripplekv::test::scratch_dir("lb_cli", name) / name; }

std::string stories_args() {
  using ripplekv::test::shared_data;
  return "--model " + shared_data("stories260K/stories260K.bin") + " --max-input-tokens 380 --threads 2";
}

std::string mini() { return ripplekv::test::shared_data("longbench/mini"); }

std::size_t count_lines(const fs::path& path) {
  const auto text = read_text(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

}  // namespace

TEST_CASE("longbench on stories260K: predictions, scores, skip when complete, resume after a kill",
          "[longbench][cli]") {
  const auto out = scratch("main");
  const std::string base = "longbench " + stories_args() + " --data " + mini() +
                           " --tasks hotpotqa,samsum,lcc --max-samples 2 --out " + out.string();
  auto r = run_ripplekv(base);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* task : {"hotpotqa", "samsum", "lcc"}) {
    const auto records = ripplekv::eval::load_predictions_jsonl(out / (std::string(task) + ".jsonl"));
    CHECK(records.size() == 2);
  }
  // pred.py's format, _id added; samsum stops at a newline and keeps it, as HF generate does.
  for (const auto& line : {read_text(out / "samsum.jsonl")}) {
    const auto first = nlohmann::json::parse(line.substr(0, line.find('\n')));
    CHECK(first.at("_id") == "0");
    CHECK(first.contains("answers"));
    CHECK(first.contains("all_classes"));
    CHECK(first.contains("length"));
    const auto pred = first.at("pred").get<std::string>();
    CHECK(pred.find('\n') == pred.size() - 1);
  }
  const auto result = nlohmann::json::parse(read_text(out / "result.json"));
  CHECK(result.size() == 3);
  CHECK(result.contains("lcc"));
  CHECK(fs::exists(out / "results.md"));
  CHECK(fs::exists(out / "results.csv"));
  CHECK(r.output.find("| run | hotpotqa | samsum | lcc | Avg |") != std::string::npos);
  const auto config = nlohmann::json::parse(read_text(out / "config.json"));
  CHECK(config.at("run").at("prompt").at("max_input_tokens") == 380);
  CHECK(config.at("run").at("prompt").at("chat_template") == "none");
  CHECK(config.at("run").at("data").at("lcc").at("samples") == 2);

  // Complete: a rerun generates nothing.
  const auto lcc_before = read_text(out / "lcc.jsonl");
  r = run_ripplekv(base);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("lcc: complete, skipped") != std::string::npos);
  CHECK(read_text(out / "lcc.jsonl") == lcc_before);

  // Killed while writing the second lcc line: the torn line is dropped and redone (greedy
  // decoding is deterministic, so the file comes back byte for byte).
  const auto first_nl = lcc_before.find('\n');
  { std::ofstream(out / "lcc.jsonl", std::ios::binary | std::ios::trunc) << lcc_before.substr(0, first_nl + 20); }
  r = run_ripplekv(base);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("torn") != std::string::npos);
  CHECK(r.output.find("hotpotqa: complete, skipped") != std::string::npos);
  CHECK(read_text(out / "lcc.jsonl") == lcc_before);

  // The same folder with another configuration is refused, and nothing is touched.
  r = run_ripplekv(base + " --chat-template llama2");
  CHECK(r.status != 0);
  CHECK(r.output.find("prompt.chat_template") != std::string::npos);
  CHECK(read_text(out / "lcc.jsonl") == lcc_before);

  // longbench-score on the folder gives the same result.json.
  const auto scored = scratch("scored");
  r = run_ripplekv("longbench-score --pred " + out.string() + " --out " + scored.string());
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(read_text(scored / "result.json")) == result);
}

TEST_CASE("longbench shards: each shard writes its samples, the last one merges and scores", "[longbench][cli]") {
  const auto out = scratch("shards");
  const auto whole = scratch("whole");
  const std::string common = "longbench " + stories_args() + " --data " + mini() + " --tasks trec --max-samples 3";
  auto r = run_ripplekv(common + " --shard 1/2 --out " + out.string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("waiting for shard 0/2") != std::string::npos);
  CHECK(count_lines(out / "shards" / "trec.shard-1-of-2.jsonl") == 1);
  CHECK_FALSE(fs::exists(out / "trec.jsonl"));
  CHECK_FALSE(fs::exists(out / "result.json"));
  r = run_ripplekv("longbench-merge --out " + out.string());
  CHECK(r.status != 0);
  CHECK(r.output.find("0/2") != std::string::npos);

  r = run_ripplekv(common + " --shard 0/2 --out " + out.string());
  REQUIRE(r.status == 0);
  CHECK(count_lines(out / "shards" / "trec.shard-0-of-2.jsonl") == 2);
  REQUIRE(fs::exists(out / "trec.jsonl"));
  CHECK(fs::exists(out / "result.json"));

  // The merged file is what an unsharded run writes.
  r = run_ripplekv(common + " --out " + whole.string());
  REQUIRE(r.status == 0);
  CHECK(read_text(out / "trec.jsonl") == read_text(whole / "trec.jsonl"));
  CHECK(read_text(out / "result.json") == read_text(whole / "result.json"));

  r = run_ripplekv("longbench-merge --out " + out.string());
  CHECK(r.status == 0);

  // Extending with another shard count is refused before the folder changes: the 3-shard files
  // and the 2-shard ones would never merge.
  const std::string five = "longbench " + stories_args() + " --data " + mini() + " --tasks trec --max-samples 5";
  r = run_ripplekv(five + " --shard 0/3 --out " + out.string());
  CHECK(r.status != 0);
  CHECK(r.output.find("trec's files of 2 shards, and this run is --shard 0/3: rerun with --shard i/2") !=
        std::string::npos);
  CHECK(nlohmann::json::parse(read_text(out / "config.json")).at("run").at("max_samples") == 3);
  CHECK(fs::exists(out / "result.json"));
  CHECK_FALSE(fs::exists(out / "shards" / "trec.shard-0-of-3.jsonl"));

  // More samples of the same data extend both folders, sharded and not: the finished
  // predictions stay, the new ones are added, and the two still agree byte for byte.
  const auto merged_before = read_text(out / "trec.jsonl");
  const std::string more = "longbench " + stories_args() + " --data " + mini() + " --tasks trec --max-samples 5";
  for (const char* shard : {" --shard 0/2", " --shard 1/2"}) {
    r = run_ripplekv(more + shard + " --out " + out.string());
    INFO(r.output);
    REQUIRE(r.status == 0);
    // The first shard extends the folder and removes the old scores (they scored 3 samples);
    // the second finds it extended, and the last one to finish scores all 5.
    CHECK((r.output.find("extended to more samples") != std::string::npos) == (shard[9] == '0'));
    CHECK(fs::exists(out / "result.json") == (shard[9] == '1'));
  }
  CHECK(count_lines(out / "shards" / "trec.shard-0-of-2.jsonl") == 3);
  CHECK(count_lines(out / "trec.jsonl") == 5);
  CHECK(read_text(out / "trec.jsonl").rfind(merged_before, 0) == 0);  // the first 3 lines unchanged
  r = run_ripplekv(more + " --out " + whole.string());
  REQUIRE(r.status == 0);
  CHECK(read_text(out / "trec.jsonl") == read_text(whole / "trec.jsonl"));
  CHECK(read_text(out / "result.json") == read_text(whole / "result.json"));
  CHECK(nlohmann::json::parse(read_text(whole / "config.json")).at("run").at("max_samples") == 5);
  // Fewer than the folder holds is refused.
  r = run_ripplekv(common + " --out " + whole.string());
  CHECK(r.status != 0);
  CHECK(r.output.find("never fewer") != std::string::npos);
  // The unsharded folder extended with shards: each shard copies its samples of the 5 from
  // trec.jsonl instead of redoing them and runs its new one; the last merges all 7.
  const auto whole_before = read_text(whole / "trec.jsonl");
  const std::string seven = "longbench " + stories_args() + " --data " + mini() + " --tasks trec --max-samples 7";
  r = run_ripplekv(seven + " --shard 0/2 --out " + whole.string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find(": 3 trec predictions copied from the folder's whole-run file, not redone") != std::string::npos);
  CHECK(count_lines(whole / "shards" / "trec.shard-0-of-2.jsonl") == 4);
  CHECK(r.output.find("waiting for shard 1/2") != std::string::npos);
  r = run_ripplekv(seven + " --shard 1/2 --out " + whole.string());
  REQUIRE(r.status == 0);
  CHECK(r.output.find(": 2 trec predictions copied from the folder's whole-run file, not redone") != std::string::npos);
  CHECK(count_lines(whole / "trec.jsonl") == 7);
  CHECK(read_text(whole / "trec.jsonl").rfind(whole_before, 0) == 0);  // the first 5 lines unchanged
  CHECK(fs::exists(whole / "result.json"));
}

TEST_CASE("longbench bad input: clear errors, skip or stop on a malformed data line", "[longbench][cli]") {
  const auto out = scratch("bad");
  auto r = run_ripplekv("longbench " + stories_args() + " --data " + mini() + " --tasks hotpot --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("valid tasks are") != std::string::npos);

  r = run_ripplekv("longbench " + stories_args() + " --data " + mini() + " --tasks gov_report --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("512 new tokens") != std::string::npos);

  r = run_ripplekv("longbench " + stories_args() + " --data " + out.string() + "-nodata --tasks trec --out " + out.string());
  CHECK(r.status != 0);
  CHECK(r.output.find("not a directory") != std::string::npos);

  const auto data = scratch("bad_data");
  fs::create_directories(data);
  {
    std::ofstream f(data / "hotpotqa.jsonl");
    f << R"({"input": "Who?", "context": "Tom met Ann.", "answers": ["Tom"], "length": 3, "dataset": "hotpotqa", )"
      << R"("language": "en", "all_classes": null, "_id": "a1"})" << "\n"
      << "{broken\n"
      << R"({"input": "Where?", "context": "In Rome.", "answers": ["Rome"], "length": 2, "dataset": "hotpotqa", )"
      << R"("language": "en", "all_classes": null, "_id": "a2"})" << "\n";
  }
  const std::string cmd = "longbench " + stories_args() + " --data " + data.string() + " --tasks hotpotqa --out ";
  r = run_ripplekv(cmd + out.string());
  CHECK(r.status != 0);
  CHECK(r.output.find("hotpotqa.jsonl:2") != std::string::npos);
  r = run_ripplekv(cmd + out.string() + " --on-bad-line skip");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("hotpotqa.jsonl:2") != std::string::npos);
  CHECK(count_lines(out / "hotpotqa.jsonl") == 2);
}

TEST_CASE("longbench --methods x --budgets: one folder per variant, equal to single-method runs", "[longbench][cli]") {
  const auto out = scratch("grid");
  const std::string common = "longbench " + stories_args() + " --data " + mini() + " --tasks hotpotqa,samsum --max-samples 2";
  auto r = run_ripplekv(common + " --methods full,snapkv@window=8,h2o --budgets 64,128 --save-prompts --out " + out.string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* v : {"full", "snapkv@window=8_b64", "snapkv@window=8_b128", "h2o_b64", "h2o_b128"}) {
    CHECK(fs::exists(out / v / "result.json"));
    CHECK(fs::exists(out / v / "config.json"));
  }
  CHECK_FALSE(fs::exists(out / "full_b64"));  // the full cache has no budget
  CHECK(count_lines(out / "prompts" / "samsum.jsonl") == 2);
  CHECK(r.output.find("| snapkv@window=8_b64 |") != std::string::npos);
  // The same variant alone, with --selector/--budget: identical predictions and kept tokens.
  const auto alone = scratch("grid_alone");
  r = run_ripplekv(common + " --selector snapkv --budget 128 --method-opt window=8 --out " + alone.string());
  REQUIRE(r.status == 0);
  for (const char* f : {"hotpotqa.jsonl", "samsum.jsonl", "kept/hotpotqa.jsonl", "kept/samsum.jsonl", "result.json"}) {
    INFO(f);
    CHECK(read_text(out / "snapkv@window=8_b128" / f) == read_text(alone / f));
  }
  // Rerun: everything complete, nothing redone.
  r = run_ripplekv(common + " --methods full,snapkv@window=8,h2o --budgets 64,128 --out " + out.string());
  CHECK(r.status == 0);
  CHECK(r.output.find("samsum: complete, skipped") != std::string::npos);
  // A sample lost by one variant is redone; the prompts file written before is read back, not refused.
  {
    const auto lost = out / "h2o_b64" / "samsum.jsonl";
    const auto text = read_text(lost);
    std::ofstream(lost, std::ios::trunc) << text.substr(0, text.find('\n') + 1);
  }
  r = run_ripplekv(common + " --methods full,snapkv@window=8,h2o --budgets 64,128 --save-prompts --out " + out.string());
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(count_lines(out / "h2o_b64" / "samsum.jsonl") == 2);
  CHECK(count_lines(out / "prompts" / "samsum.jsonl") == 2);
  // Grid options that make no sense are refused.
  r = run_ripplekv(common + " --methods snapkv --budgets 64 --budget 32 --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("--methods gives the methods of a grid") != std::string::npos);
  r = run_ripplekv(common + " --methods snapkv --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("give --budgets") != std::string::npos);
  r = run_ripplekv(common + " --methods snapkv --budgets 64,x --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("\"x\" is not a positive token count") != std::string::npos);
  r = run_ripplekv(common + " --budgets 64 --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("--budgets goes with --methods") != std::string::npos);
}
