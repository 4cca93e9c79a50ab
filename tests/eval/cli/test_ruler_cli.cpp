// `ripplekv ruler` and `ripplekv needle` end to end on SmolLM2-135M-Instruct (bf16, short
// lengths, few tokens): a methods x budgets grid, resume, shards, `ripplekv table`, bad input.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/ops/cpu_features.h"
#include "test_paths.h"
#include "test_support.h"

namespace fs = std::filesystem;

namespace {
using Run = ripplekv::test::CommandResult;
Run run_ripplekv(const std::string& args) { return ripplekv::test::run_command(std::string(RIPPLEKV_BINARY) + " " + args); }
std::string read_text(const fs::path& p) { return ripplekv::test::read_text(p); }
// A path that does not exist yet (the program makes its --out folder), inside a scratch folder
// removed when the process exits.
fs::path scratch(const std::string& name) { return ripplekv::test::scratch_dir("ruler_cli", name) / name; }
std::string smollm2() {
  return "--model " + ripplekv::test::real_model("smollm2-135m-instruct") + " --dtype bfloat16 --threads 2";
}
std::size_t lines(const fs::path& p) {
  const auto t = read_text(p);
  return static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n'));
}
}  // namespace

TEST_CASE("ruler: a grid, resume, shards equal to one run, table, bad input", "[ruler][cli]") {
  const auto out = scratch("grid");
  const std::string common = "ruler " + smollm2() + " --samples 2";
  const std::string base = common + " --tasks vt,fwe --lengths 1024";
  auto r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --out " + out.string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(lines(out / "data" / "1024" / "vt" / "validation.jsonl") == 2);
  for (const char* v : {"full", "snapkv_b128"}) {
    CHECK(lines(out / v / "1024" / "vt.jsonl") == 2);
    CHECK(lines(out / v / "1024" / "fwe.jsonl") == 2);
    const auto result = nlohmann::json::parse(read_text(out / v / "result.json"));
    CHECK(result.contains("vt@1024"));
    CHECK(result.contains("fwe@1024"));
  }
  CHECK(r.output.find("RULER, snapkv_b128") != std::string::npos);
  // RULER's prediction format: what its evaluate.py reads.
  const auto first = nlohmann::json::parse(read_text(out / "full" / "1024" / "vt.jsonl").substr(0, read_text(out / "full" / "1024" / "vt.jsonl").find('\n')));
  for (const char* key : {"index", "input", "outputs", "pred", "others", "_id"}) CHECK(first.contains(key));

  // Rerun: nothing redone, the same predictions.
  const auto before = read_text(out / "snapkv_b128" / "1024" / "fwe.jsonl");
  r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --out " + out.string());
  REQUIRE(r.status == 0);
  CHECK(read_text(out / "snapkv_b128" / "1024" / "fwe.jsonl") == before);
  CHECK(r.output.find("tok/s") == std::string::npos);  // no progress line: nothing ran
  // Each folder records its thread count; resuming on another one says so, and goes on.
  const auto config = nlohmann::json::parse(read_text(out / "snapkv_b128" / "config.json"));
  CHECK(config["info"]["threads"] == 2);
  std::string base1 = base;
  base1.replace(base1.find("--threads 2"), 11, "--threads 1");
  r = run_ripplekv(base1 + " --methods full,snapkv --budgets 128 --out " + out.string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("snapkv_b128: started on 2 threads, resumed on 1") != std::string::npos);
  CHECK(read_text(out / "snapkv_b128" / "1024" / "fwe.jsonl") == before);
  r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --out " + out.string());
  CHECK(r.output.find("resumed on") == std::string::npos);  // the same thread count: nothing to say
  // ... and the arithmetic of its CPU kernels; resuming with other kernels says so too.
  const std::string ours = ripplekv::ops::cpu_kernel_arithmetic(true);  // a bfloat16 model
  const std::string kernels = config["info"]["cpu_kernels"].get<std::string>();
  CHECK(kernels.rfind(ours + "; ATen ", 0) == 0);
  CHECK(r.output.find("CPU kernels") == std::string::npos);
  CHECK(r.output.find("started on the CPU") == std::string::npos);  // the same CPU: nothing to say
  // Resumed with RIPPLEKV_CPU_ISA=<isa>, whose kernels are `capped`: the note names both
  // where they differ from the recorded ones, and the finished samples stay as they were.
  const auto resume_capped = [&](const std::string& isa, const std::string& capped) {
    const auto rc = ripplekv::test::run_command("RIPPLEKV_CPU_ISA=" + isa + " " + std::string(RIPPLEKV_BINARY) + " " +
                                                base + " --methods full,snapkv --budgets 128 --out " + out.string());
    INFO(rc.output);
    REQUIRE(rc.status == 0);
    if (ours != capped) {
      CHECK(rc.output.find("snapkv_b128: started with the CPU kernels " + kernels + ", resumed with " + capped +
                           "; ATen ") != std::string::npos);
    } else {
      CHECK(rc.output.find("CPU kernels") == std::string::npos);
    }
    CHECK(read_text(out / "snapkv_b128" / "1024" / "fwe.jsonl") == before);
    return rc.output;
  };
  const auto none = resume_capped("none", "aten");
  if (ours != "aten") {
    INFO(none);
    const std::string hint = ours == "avx512" ? "RIPPLEKV_CPU_ISA=avx512 on an AVX-512 CPU matches them"
                                              : "a CPU with those kernels matches them";
    CHECK(none.find("(" + hint + ")") != std::string::npos);
  }
  // RIPPLEKV_CPU_ISA=avx2 runs what an x86-64 CPU without AVX-512 runs, on any x86-64 CPU.
#if defined(__x86_64__)
  resume_capped("avx2", "aten+widened_bf16");
#else
  resume_capped("avx2", "aten");
#endif

  // Two shards of the same grid regenerate the same samples and, merged, equal the
  // one-process run (each sample's variants decode in the same batches).
  const auto sharded = scratch("shards");
  for (const char* s : {"0/2", "1/2"}) {
    r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --shard " + std::string(s) + " --out " +
                     sharded.string());
    INFO(r.output);
    REQUIRE(r.status == 0);
  }
  CHECK(read_text(sharded / "data" / "1024" / "fwe" / "validation.jsonl") == read_text(out / "data" / "1024" / "fwe" / "validation.jsonl"));
  CHECK(read_text(sharded / "snapkv_b128" / "1024" / "fwe.jsonl") == before);
  CHECK(read_text(sharded / "snapkv_b128" / "result.json") == read_text(out / "snapkv_b128" / "result.json"));
  // Another shard count into the same folders is refused before it runs: its files and the
  // 2-shard ones would never merge.
  std::string three = base;
  three.replace(three.find("--samples 2"), 11, "--samples 3");
  r = run_ripplekv(three + " --methods full,snapkv --budgets 128 --shard 0/3 --out " + sharded.string());
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.output.find("vt's files of 2 shards, and this run is --shard 0/3: rerun with --shard i/2 (each i from 0 to 1)") !=
        std::string::npos);
  CHECK(!fs::exists(sharded / "full" / "1024" / "shards" / "vt.shard-0-of-3.jsonl"));
  // ... and before any folder is changed: still 2 samples, scored, its data not extended.
  CHECK(nlohmann::json::parse(read_text(sharded / "full" / "config.json"))["run"]["samples"] == 2);
  CHECK(read_text(sharded / "snapkv_b128" / "result.json") == read_text(out / "snapkv_b128" / "result.json"));
  CHECK(lines(sharded / "data" / "1024" / "vt" / "validation.jsonl") == 2);
  // A merged file whose line for a sample differs from the shard's (another run made it): the
  // merge would replace it, so the command scores the other variants and then stops with an
  // error naming both files, leaving the line as it was.
  {
    const auto merged = sharded / "full" / "1024" / "vt.jsonl";
    const auto text = read_text(merged);
    auto first = nlohmann::json::parse(text.substr(0, text.find('\n')));
    first["pred"] = "a prediction another run made";
    std::ofstream(merged, std::ios::trunc) << first.dump() << "\n";
    fs::remove(sharded / "snapkv_b128" / "result.json");
    r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --shard 0/2 --out " + sharded.string());
    INFO(r.output);
    CHECK(r.status != 0);
    CHECK(r.output.find("full/1024/vt.jsonl and ") != std::string::npos);
    CHECK(r.output.find("vt.shard-0-of-2.jsonl hold different predictions for sample _id \"0\"") != std::string::npos);
    CHECK(read_text(sharded / "snapkv_b128" / "result.json") == read_text(out / "snapkv_b128" / "result.json"));
    CHECK(read_text(merged) == first.dump() + "\n");
    // With that file moved away, the shards merge again.
    fs::remove(merged);
    r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --shard 0/2 --out " + sharded.string());
    CHECK(r.status == 0);
    CHECK(read_text(merged) == text);
  }
  // --decode sequential writes what a single-method run writes, byte for byte.
  const auto seq = scratch("sequential");
  r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --decode sequential --out " + seq.string());
  REQUIRE(r.status == 0);
  const auto single = scratch("single");
  r = run_ripplekv(base + " --selector snapkv --budget 128 --out " + single.string());
  REQUIRE(r.status == 0);
  CHECK(read_text(seq / "snapkv_b128" / "1024" / "fwe.jsonl") == read_text(single / "1024" / "fwe.jsonl"));
  CHECK(read_text(seq / "snapkv_b128" / "1024" / "vt.jsonl") == read_text(single / "1024" / "vt.jsonl"));
  r = run_ripplekv(base + " --methods full,snapkv --budgets 128 --decode fast --out " + seq.string());
  CHECK(r.status != 0);
  CHECK(r.output.find("--decode") != std::string::npos);

  // `ripplekv table` reads the variant folders like LongBench runs.
  r = run_ripplekv("table --runs " + out.string() + " --out " + (out / "table").string());
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(fs::exists(out / "table"));
  CHECK(r.output.find("**vt** | **fwe**") != std::string::npos);  // the run's own task order

  // Bad input: clear errors, exit 2 for options.
  r = run_ripplekv(common + " --tasks vt --lengths 100000 --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("longer than the model's context of 8192 tokens") != std::string::npos);
  r = run_ripplekv(common + " --tasks vt --lengths 1024 --shard 2/3 --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("--shard 2/3 with --samples 2") != std::string::npos);
  r = run_ripplekv(common + " --tasks qa_1 --lengths 1024 --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("SQuAD") != std::string::npos);
  r = run_ripplekv(base + " --seed 7 --methods full,snapkv --budgets 128 --out " + out.string());
  CHECK(r.status != 0);
  CHECK(r.output.find("seed") != std::string::npos);  // the folder's config says seed 42
  const auto bad = scratch("bad");
  ripplekv::test::write_text(bad / "vt" / "validation.jsonl", "{\"index\": 0, \"input\": \"x\"}\n");
  r = run_ripplekv(common + " --tasks vt --lengths 1024 --data " + bad.string() + " --out " + (bad / "out").string());
  CHECK(r.status != 0);
  CHECK(r.output.find("validation.jsonl:1") != std::string::npos);
  CHECK(r.output.find("outputs") != std::string::npos);

  // A larger --samples extends the folder: the first samples come back unchanged (each from its
  // own seeded stream), their predictions stay, only the new one runs, and the scores cover all.
  auto with_samples = [&](int n) {
    std::string args = base;
    args.replace(args.find("--samples 2"), 11, "--samples " + std::to_string(n));
    return args + " --methods full,snapkv --budgets 128 --out " + out.string();
  };
  const auto vt_data = read_text(out / "data" / "1024" / "vt" / "validation.jsonl");
  r = run_ripplekv(with_samples(3));
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("snapkv_b128: extended to more samples of the same data") != std::string::npos);
  CHECK(lines(out / "data" / "1024" / "vt" / "validation.jsonl") == 3);
  CHECK(read_text(out / "data" / "1024" / "vt" / "validation.jsonl").rfind(vt_data, 0) == 0);
  CHECK(lines(out / "snapkv_b128" / "1024" / "fwe.jsonl") == 3);
  CHECK(read_text(out / "snapkv_b128" / "1024" / "fwe.jsonl").rfind(before, 0) == 0);  // kept byte for byte
  CHECK(r.output.find("fwe x2 2/3") != std::string::npos);  // the one new sample ran
  const auto scores = nlohmann::json::parse(read_text(out / "snapkv_b128" / "sample_scores.json"));
  CHECK(scores["columns"]["fwe@1024"]["ids"].size() == 3);
  CHECK(nlohmann::json::parse(read_text(out / "full" / "config.json"))["run"]["samples"] == 3);
  // Fewer than the folder holds is refused.
  r = run_ripplekv(with_samples(2));
  CHECK(r.status != 0);
  CHECK(r.output.find("samples: 3 there, 2 now") != std::string::npos);
  CHECK(r.output.find("--samples (ruler) as large as the folder's") != std::string::npos);
  // Samples there that the seed no longer generates (another generator, haystack or seed) stop
  // the run before any folder is changed.
  const auto input_at = vt_data.find("\"input\":\"");
  REQUIRE(input_at != std::string::npos);
  ripplekv::test::write_text(out / "data" / "1024" / "vt" / "validation.jsonl",
                             read_text(out / "data" / "1024" / "vt" / "validation.jsonl").replace(input_at + 9, 1, "#"));
  r = run_ripplekv(with_samples(4));
  INFO(r.output);
  CHECK(r.status != 0);
  CHECK(r.output.find("validation.jsonl: sample 0 is not the one --seed 42 generates now") != std::string::npos);
  CHECK(nlohmann::json::parse(read_text(out / "full" / "config.json"))["run"]["samples"] == 3);
  CHECK(lines(out / "data" / "1024" / "vt" / "validation.jsonl") == 3);
}

TEST_CASE("needle: a grid of depths x lengths for two variants, resumable", "[needle][cli]") {
  const auto out = scratch("needle");
  const std::string cmd = "needle " + smollm2() + " --lengths 256,512 --depths 0,100 --max-new-tokens 16 --methods full,snapkv "
                          "--budgets 64 --out " + out.string();
  auto r = run_ripplekv(cmd);
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* v : {"full", "snapkv_b64"}) {
    const auto heat = nlohmann::json::parse(read_text(out / v / "needle.json"));
    CHECK(heat.at("scores").size() == 2);     // depths
    CHECK(heat.at("scores")[0].size() == 2);  // lengths
    CHECK(lines(out / v / "needle.jsonl") == 4);
    const auto result = nlohmann::json::parse(read_text(out / v / "result.json"));
    CHECK(result.contains("needle@512"));
    // Per-cell scores for confidence intervals: one column per length, one sample per depth,
    // averaging to the length's score.
    const auto samples = nlohmann::json::parse(read_text(out / v / "sample_scores.json"));
    for (const char* column : {"needle@256", "needle@512"}) {
      const auto& scores = samples.at("columns").at(column).at("scores");
      REQUIRE(scores.size() == 2);
      CHECK((scores[0].get<double>() + scores[1].get<double>()) / 2 == Approx(result.at(column).get<double>()));
    }
  }
  const auto before = read_text(out / "full" / "needle.jsonl");
  r = run_ripplekv(cmd);
  CHECK(r.status == 0);
  CHECK(read_text(out / "full" / "needle.jsonl") == before);
  r = run_ripplekv("needle " + smollm2() + " --depths 0,101 --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.output.find("--depths: \"101\"") != std::string::npos);
}
