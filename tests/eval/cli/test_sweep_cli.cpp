// `ripplekv sweep` and `ripplekv table` end to end, run as a user runs them (RIPPLEKV_BINARY,
// from the repository root so that the shipped configs' relative paths resolve): --config
// handling, the shipped sweep files, and the demo sweep on stories260K with shards, skipping of
// complete runs, resuming after a kill, and its tables.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "eval/experiments/run_kinds.h"
#include "models/ops/cpu_features.h"
#include "test_support.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

using Run = ripplekv::test::CommandResult;

// Runs `ripplekv <args>` in the repository root.
Run run_ripplekv(const std::string& args) {
  return ripplekv::test::run_command("cd '" + std::string(RIPPLEKV_SOURCE_DIR) + "' && " + RIPPLEKV_BINARY + " " + args);
}

fs::path scratch(const std::string& name) { return ripplekv::test::scratch_dir("sweep_cli", name); }
void write(const fs::path& path, const std::string& text) { ripplekv::test::write_text(path, text); }
std::string read(const fs::path& path) { return ripplekv::test::read_text(path); }

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// A finished `ripplekv longbench` folder with one task.
void fake_longbench_run(const fs::path& dir) {
  nlohmann::json run;
  run["model"] = "/m/stories260K.bin";
  run["tasks"] = {"trec"};
  run["data"]["trec"] = {{"file", "trec.jsonl"}, {"samples", 1}};
  run["method"] = {{"selector", "snapkv"}, {"allocator", "uniform"}, {"budget", 64}, {"options", nlohmann::json::object()}};
  write(dir / "config.json", nlohmann::json{{"ripplekv_longbench_config", 1}, {"run", run}}.dump());
  write(dir / "trec.jsonl", "{\"pred\": \"a\", \"_id\": \"1\"}\n");
  write(dir / "result.json", "{\"trec\": 50.0}");
}

// The long option names a command's --help lists.
std::set<std::string> help_options(const std::string& command) {
  const auto r = run_ripplekv(command + " --help");
  REQUIRE(r.status == 0);
  std::set<std::string> names;
  const std::regex re(R"(^\s+(?:-\w \[ )?--([a-z0-9-]+))");
  std::stringstream ss(r.output);
  std::string line;
  while (std::getline(ss, line)) {
    std::smatch m;
    if (std::regex_search(line, m, re)) names.insert(m[1]);
  }
  return names;
}

}  // namespace

TEST_CASE("config files: options from --config FILE, the command line wins, unknown keys name key and file",
          "[sweep][cli][config]") {
  const auto dir = scratch("config");
  fake_longbench_run(dir / "runs" / "one");
  write(dir / "t.ini", "# a table config\nruns = " + (dir / "runs").string() + "   # inline comment\nout = " +
                           (dir / "from-file").string() + "\n");
  auto r = run_ripplekv("table --config " + (dir / "t.ini").string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(fs::exists(dir / "from-file" / "longbench.md"));
  r = run_ripplekv("table --config " + (dir / "t.ini").string() + " --out " + (dir / "from-cli").string());
  REQUIRE(r.status == 0);
  CHECK(fs::exists(dir / "from-cli" / "longbench.md"));
  CHECK_THAT(read(dir / "from-cli" / "table_config.json"), Contains("from-cli"));

  write(dir / "bad.ini", "runs = x\nouts = y\n");
  r = run_ripplekv("table --config " + (dir / "bad.ini").string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("outs"));
  CHECK_THAT(r.output, Contains("bad.ini"));
  // A [command] section applies to that command only; other commands' sections are skipped;
  // any other section is an error naming the key and the file.
  write(dir / "sections.ini", "[table]\nruns = " + (dir / "runs").string() + "\n[generate]\nprompt = ignored\n");
  r = run_ripplekv("table --config " + (dir / "sections.ini").string() + " --out " + (dir / "from-section").string());
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(fs::exists(dir / "from-section" / "longbench.md"));
  write(dir / "badsection.ini", "[tabel]\nruns = x\n");
  r = run_ripplekv("table --config " + (dir / "badsection.ini").string() + " --out x");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("tabel.runs"));
  CHECK_THAT(r.output, Contains("badsection.ini"));
}

TEST_CASE("sweep: the kinds' option lists are the commands' own options", "[sweep][cli]") {
  for (const auto& kind : ripplekv::experiments::run_kinds()) {
    INFO(kind.name);
    std::set<std::string> declared = {"help", "config"};
    for (const auto& o : kind.options) declared.insert(o.name);
    for (const auto* o : kind.sweep_owned) declared.insert(o);
    CHECK(help_options(kind.name) == declared);
  }
}

TEST_CASE("sweep: the shipped sweep files expand (dry run)", "[sweep][cli]") {
  const auto out = scratch("dry");
  auto r = run_ripplekv("sweep --config configs/sweeps/demo.ini --dry-run --out " + out.string());
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("20 runs in the grid"));
  CHECK_THAT(r.output, Contains("dry run: 20 to run, 0 complete"));
  CHECK_FALSE(fs::exists(out / "sweep.json"));  // a dry run writes nothing
  r = run_ripplekv("sweep --config configs/sweeps/ratio_ablation.ini --dry-run --out " + out.string());
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("12 runs in the grid"));
  r = run_ripplekv("sweep --config configs/sweeps/longbench_table.ini --dry-run --out " + out.string() +
               " --shard 3/8 --set method.ripple.ratio=2");
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Contains("43 runs in the grid, 5 in shard 3/8"));
  // Bad input reaches the user as an error with exit status 2.
  r = run_ripplekv("sweep --config configs/sweeps/demo.ini --dry-run --set budget=lots");
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("\"lots\" is not an integer"));
  write(out / "dup.ini", "[sweep]\nkinds = fidelity\n[common]\nmethod = pyramidkv | snapkv:pyramid\nbudget = 8\n");
  r = run_ripplekv("sweep --config " + (out / "dup.ini").string() + " --dry-run --out " + out.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("resolve to the same fidelity configuration"));
  r = run_ripplekv("sweep --config configs/sweeps/demo.ini --shard 2/2 --dry-run");
  CHECK(r.status == 2);
  // Method keys and values are checked by the dry run, as the real run checks them.
  r = run_ripplekv("sweep --config configs/sweeps/demo.ini --dry-run --set method.snapkv.windw=8 --out " +
                   out.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("unknown option(s) windw; valid options: gqa, kernel, pooling, window"));
  r = run_ripplekv("sweep --config configs/sweeps/demo.ini --dry-run --set 'method.ripple.ratio=0|2' --out " +
                   out.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("ratio=0 must be >= 1"));
  r = run_ripplekv("sweep --config configs/sweeps/demo.ini --dry-run --set method.ripple.calibration=/nonexistent "
                   "--out " + out.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("calibration=/nonexistent: no such file"));
  r = run_ripplekv("sweep --config configs/sweeps/demo.ini --dry-run --set method.ripple.eps=-1 --out " +
                   out.string());
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Contains("eps=-1 must be a positive number"));
  CHECK_FALSE(fs::exists(out / "sweep.json"));
}

TEST_CASE("demo sweep on stories260K: shards, skips, resume after a kill, tables", "[sweep][cli]") {
  const auto out = scratch("demo");
  const std::string sweep = "sweep --config configs/sweeps/demo.ini --out " + out.string();

  auto r = run_ripplekv(sweep + " --shard 1/2");
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(count(r.output, ": running (") == 10);
  // The 5 fidelity runs and the 5 LongBench runs of the shard share their settings: two calls.
  CHECK(count(r.output, "these 5 runs share their settings") == 2);
  const auto grid = nlohmann::json::parse(read(out / "sweep.json"));
  REQUIRE(grid["runs"].size() == 20);
  std::vector<fs::path> dirs;
  for (const auto& run : grid["runs"]) dirs.push_back(out / run["folder"].get<std::string>());
  for (std::size_t k = 0; k < dirs.size(); ++k) {
    INFO(dirs[k]);
    CHECK(fs::exists(dirs[k] / "sweep_run.json") == (k % 2 == 1));
  }

  // The other shard, then the whole grid: nothing twice.
  r = run_ripplekv(sweep + " --shard 0/2");
  REQUIRE(r.status == 0);
  CHECK(count(r.output, ": running (") == 10);
  r = run_ripplekv(sweep);
  REQUIRE(r.status == 0);
  CHECK(count(r.output, ": running (") == 0);
  CHECK(count(r.output, ": complete, skipped") == 20);

  // A kill mid-sweep: a LongBench run lost its last prediction lines, a fidelity run its
  // results. Only those two run again (the LongBench one only for its missing samples).
  fs::path longbench_dir, fidelity_dir;
  for (const auto& d : dirs) {
    if (d.string().find("/longbench/ripple-b64-ratio2-") != std::string::npos) longbench_dir = d;
    if (d.string().find("/fidelity/pyramidkv-b32-") != std::string::npos) fidelity_dir = d;
  }
  REQUIRE(!longbench_dir.empty());
  REQUIRE(!fidelity_dir.empty());
  const auto samsum = read(longbench_dir / "samsum.jsonl");
  write(longbench_dir / "samsum.jsonl", samsum.substr(0, samsum.find('\n') + 1) + "{\"pred\": \"torn");
  fs::remove(fidelity_dir / "fidelity.csv");
  r = run_ripplekv(sweep + " --dry-run");
  CHECK_THAT(r.output, Contains("dry run: 2 to run, 18 complete"));
  r = run_ripplekv(sweep);
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK(count(r.output, ": running (") == 2);
  CHECK_THAT(r.output, Contains(longbench_dir.filename().string() + ": running ("));
  CHECK_THAT(r.output, Contains(fidelity_dir.filename().string() + ": running ("));
  CHECK_THAT(r.output, Contains("samsum"));
  CHECK(count(read(longbench_dir / "samsum.jsonl"), "\n") == 2);
  CHECK(fs::exists(fidelity_dir / "fidelity.csv"));
  // Both kinds of run record the arithmetic of the CPU kernels for their dtype.
  const auto fidelity_config = nlohmann::json::parse(read(fidelity_dir / "config.json"));
  const std::string kernels = ripplekv::ops::cpu_kernel_arithmetic(fidelity_config["options"]["dtype"] == "bfloat16");
  CHECK(fidelity_config["cpu_kernels"].get<std::string>().rfind(kernels + "; ATen ", 0) == 0);
  CHECK(nlohmann::json::parse(read(longbench_dir / "config.json"))["info"]["cpu_kernels"] ==
        fidelity_config["cpu_kernels"]);
  // ... and the CPU's model (/proc/cpuinfo names it on x86-64 Linux), the same in both.
#if defined(__linux__) && defined(__x86_64__)
  CHECK_FALSE(fidelity_config.value("cpu", "").empty());
#endif
  CHECK(nlohmann::json::parse(read(longbench_dir / "config.json"))["info"].value("cpu", "") ==
        fidelity_config.value("cpu", ""));

  // Runs made in a group equal, byte for byte, their own command line run alone.
  fs::path grouped_fidelity;
  for (const auto& d : dirs) {
    if (d.string().find("/fidelity/ripple-b64-ratio2-") != std::string::npos) grouped_fidelity = d;
  }
  REQUIRE(!grouped_fidelity.empty());
  const std::vector<std::pair<fs::path, std::vector<std::string>>> compared = {
      {longbench_dir, {"hotpotqa.jsonl", "lcc.jsonl", "kept/hotpotqa.jsonl", "kept/lcc.jsonl"}},
      {grouped_fidelity, {"fidelity.csv", "fidelity_texts.csv"}}};
  for (const auto& [dir, files] : compared) {
    std::string command = nlohmann::json::parse(read(dir / "sweep_run.json"))["command"].get<std::string>();
    const auto alone = scratch("demo_alone") / "run";  // emptied for each run compared
    const std::string from = "--out=" + dir.string();
    REQUIRE(command.find(from) != std::string::npos);
    command.replace(command.find(from), from.size(), "--out=" + alone.string());
    const auto single = run_ripplekv(command.substr(std::string("ripplekv ").size()));
    INFO(single.output);
    REQUIRE(single.status == 0);
    for (const auto& f : files) {
      INFO(dir / f);
      CHECK(read(alone / f) == read(dir / f));
    }
  }

  // Tables and the plots' summary.
  r = run_ripplekv("table --runs " + out.string() + " --out " + (out / "tables").string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* f : {"longbench.md", "longbench.csv", "longbench.tex", "fidelity.md", "fidelity.csv",
                        "fidelity.tex", "summary.json", "table_config.json"}) {
    CHECK(fs::exists(out / "tables" / f));
  }
  // The fidelity runs' per-variant record folders are not mistaken for unfinished runs.
  CHECK(nlohmann::json::parse(read(out / "tables" / "table_config.json"))["left_out"].empty());
  CHECK(r.output.find("not complete") == std::string::npos);
  const auto md = read(out / "tables" / "longbench.md");
  CHECK_THAT(md, Contains("| **Method** | **Budget** | **HotpotQA** | **SAMSum** | **Lcc** | **Avg** |"));
  CHECK_THAT(md, Contains("| RippleKV (r=2) | 64 |"));
  CHECK_THAT(md, Contains("| PyramidKV | 32 |"));
  CHECK(count(read(out / "tables" / "longbench.csv"), "\n") == 11);  // header + 10 runs
  CHECK(count(read(out / "tables" / "fidelity.csv"), "\n") == 11);
  CHECK_THAT(read(out / "tables" / "longbench.tex"), Contains("\\toprule"));
  const auto summary = nlohmann::json::parse(read(out / "tables" / "summary.json"));
  REQUIRE(summary["longbench"].size() == 10);
  for (const auto& run : summary["longbench"]) {
    CHECK(run["kept_per_layer"].size() == 5);  // stories260K's layers
  }
  REQUIRE(summary["fidelity"].size() == 10);

  // The plots from the same results (scripts/plot_results.py with the project's Python).
  const std::string python = std::string(RIPPLEKV_PYTHON_EXE).empty() ? "python3" : RIPPLEKV_PYTHON_EXE;
  r = ripplekv::test::run_command(python + " '" + RIPPLEKV_SOURCE_DIR + "/scripts/plot_results.py' --summary " +
                                  (out / "tables" / "summary.json").string() + " --out " + (out / "plots").string());
  INFO(r.output);
  REQUIRE(r.status == 0);
  for (const char* png : {"score_vs_budget.png", "score_vs_ratio.png", "layer_budgets.png"}) {
    const auto bytes = read(out / "plots" / png);
    CHECK(bytes.size() > 1000);
    CHECK(bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  }

  // Results of another task set next to these: a clear error.
  const auto other = scratch("demo_other");
  fake_longbench_run(other / "one");
  r = run_ripplekv("table --runs " + out.string() + " " + other.string() + " --out " + (out / "mixed").string());
  CHECK(r.status != 0);
  CHECK_THAT(r.output, Contains("different task sets"));
}
