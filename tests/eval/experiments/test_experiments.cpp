// Sweep files, grids, run folders and paper tables (eval/experiments/), without a model: the
// grid's expansion, names, dedup and shards; what makes a run folder complete; the three table
// formats and their best-value marks; and the errors for bad input.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "test_support.h"
#include "eval/experiments/ini_file.h"
#include "eval/experiments/paired_comparison.h"
#include "eval/experiments/paper_tables.h"
#include "eval/experiments/pooled_runs.h"
#include "eval/experiments/published_results.h"
#include "eval/experiments/result_table.h"
#include "eval/experiments/run_kinds.h"
#include "eval/experiments/run_results.h"
#include "eval/experiments/sweep_grid.h"
#include "eval/kept_tokens_log.h"

namespace fs = std::filesystem;
using namespace ripplekv::experiments;
using Catch::Matchers::Contains;

namespace {

// The method names the tests use, as the program's preset table resolves them.
ResolvedMethod resolve(const std::string& name) {
  if (name == "full") return {"full", "uniform", {}};
  if (name == "snapkv") return {"snapkv", "uniform", {}};
  if (name == "pyramidkv") return {"snapkv", "pyramid", {}};
  if (name == "ripple") return {"snapkv", "ripple", {}};
  if (name == "snapkv@window=8") return {"snapkv", "uniform", {{"window", "8"}}};
  const auto colon = name.find(':');
  if (colon != std::string::npos) return {name.substr(0, colon), name.substr(colon + 1), {}};
  throw std::invalid_argument("unknown method \"" + name + "\"");
}

const char* kDemo = R"([sweep]
kinds = fidelity, longbench
out = out/x

[common]
model = m.bin
threads = 2
method = snapkv | pyramidkv | ripple
budget = 32 | 64

[fidelity]
texts = t.jsonl
max-texts = 4       # a comment

[longbench]
data = d
tasks = hotpotqa,samsum
max-samples = 2

[method.ripple]
window = 8
ratio = 1 | 2 | 4
calibration = c.jsonl
)";

std::vector<SweepRun> expand(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return expand_sweep(parse_sweep_text(text, "sweep.ini", overrides), resolve);
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

fs::path scratch(const std::string& name) { return ripplekv::test::scratch_dir("experiments", name); }
void write(const fs::path& path, const std::string& text) { ripplekv::test::write_text(path, text); }
std::string read(const fs::path& path) { return ripplekv::test::read_text(path); }

// A finished `ripplekv longbench` folder: config.json, predictions, result.json.
void fake_longbench_run(const fs::path& dir, const std::string& model, const std::string& selector,
                        const std::string& allocator, int budget, const std::map<std::string, double>& scores,
                        const std::map<std::string, std::string>& options = {},
                        const std::map<std::string, std::string>& in_force = {}) {
  nlohmann::json run;
  run["model"] = model;
  run["tasks"] = nlohmann::json::array();
  nlohmann::json result = nlohmann::json::object();
  for (const auto& [task, score] : scores) {
    run["tasks"].push_back(task);
    run["data"][task] = {{"file", task + ".jsonl"}, {"samples", 2}};
    write(dir / (task + ".jsonl"), "{\"pred\": \"a\", \"_id\": \"1\"}\n{\"pred\": \"b\", \"_id\": \"2\"}\n");
    result[task] = score;
  }
  run["method"] = {{"selector", selector}, {"allocator", allocator}, {"budget", budget}, {"options", options}};
  nlohmann::json config{{"ripplekv_longbench_config", 1}, {"run", run}};
  if (!in_force.empty()) config["info"]["method_options"] = in_force;
  write(dir / "config.json", config.dump());
  write(dir / "result.json", result.dump());
}

std::string preset_name(const std::string& selector, const std::string& allocator) {
  if (selector == "full") return "full";
  if (selector == "snapkv" && allocator == "uniform") return "snapkv";
  if (selector == "snapkv" && allocator == "pyramid") return "pyramidkv";
  if (selector == "snapkv" && allocator == "ripple") return "ripple";
  if (selector == "snapkv" && allocator == "ripple_prompt") return "ripple_prompt";
  if (selector == "h2o" && allocator == "uniform") return "h2o";
  return selector + ":" + allocator;
}

}  // namespace

TEST_CASE("ini files: sections, comments, repeated keys, errors with the line", "[experiments][sweep]") {
  const auto f = parse_ini_text("top = 1\n# comment\n[a]\nk = v w # trailing\nk = 2\n\n[b.c]\nx=\n", "f.ini");
  REQUIRE(f.entries.size() == 4);
  CHECK(f.entries[0].section == "");
  CHECK(f.entries[1].section == "a");
  CHECK(f.entries[1].value == "v w");
  CHECK(f.entries[1].line == 4);
  CHECK(f.entries[3].section == "b.c");
  CHECK(f.entries[3].value == "");
  CHECK_THAT(error_of([] { parse_ini_text("[a]\nno equals sign\n", "f.ini"); }), Contains("f.ini:2"));
  CHECK_THAT(error_of([] { parse_ini_text("[a\n", "f.ini"); }), Contains("f.ini:1"));
}

TEST_CASE("sweep grid: cartesian product in a fixed order, ratio only for ripple", "[experiments][sweep]") {
  const auto runs = expand(kDemo);
  // Per kind: snapkv x 2 budgets + pyramidkv x 2 + ripple x 2 budgets x 3 ratios = 10.
  REQUIRE(runs.size() == 20);
  std::vector<std::string> described;
  for (const auto& r : runs) described.push_back(r.describe());
  CHECK(described[0] == "fidelity method=snapkv budget=32");
  CHECK(described[1] == "fidelity method=snapkv budget=64");
  CHECK(described[2] == "fidelity method=pyramidkv budget=32");
  CHECK(described[4] == "fidelity method=ripple budget=32 ratio=1");
  CHECK(described[5] == "fidelity method=ripple budget=32 ratio=2");
  CHECK(described[7] == "fidelity method=ripple budget=64 ratio=1");
  CHECK(described[10] == "longbench method=snapkv budget=32");
  for (std::size_t i = 0; i < runs.size(); ++i) CHECK(runs[i].index == i);

  // Names: readable part + hash, all distinct, stable across expansions.
  std::set<std::string> folders;
  for (const auto& r : runs) folders.insert(r.folder());
  CHECK(folders.size() == runs.size());
  CHECK(runs[5].name.rfind("ripple-b32-ratio2-", 0) == 0);
  CHECK(runs[5].name.size() == std::string("ripple-b32-ratio2-").size() + 8);
  CHECK(runs[0].name.rfind("snapkv-b32-", 0) == 0);
  CHECK(expand(kDemo)[5].name == runs[5].name);
  // threads changes no result: not part of a run's identity.
  CHECK(expand(kDemo, {"threads=1"})[5].name == runs[5].name);
  CHECK(expand(kDemo, {"longbench.max-samples=3"})[15].name != runs[15].name);

  // Options reach only the kinds that have them; policy options only their method.
  CHECK(runs[0].options.count("texts") == 1);
  CHECK(runs[0].options.count("tasks") == 0);
  CHECK(runs[10].options.count("tasks") == 1);
  CHECK(runs[10].options.count("threads") == 1);
  CHECK(runs[0].resolved.options.empty());
  CHECK(runs[5].resolved.options.at("ratio") == "2");
  CHECK(runs[5].resolved.options.at("window") == "8");
  CHECK(runs[5].config["method"]["allocator"] == "ripple");

  // Arguments for the commands.
  const auto lb = run_arguments(runs[15], runs[15].resolved, "out/x/longbench/r");
  CHECK(std::find(lb.begin(), lb.end(), "--selector=snapkv") != lb.end());
  CHECK(std::find(lb.begin(), lb.end(), "--allocator=ripple") != lb.end());
  CHECK(std::find(lb.begin(), lb.end(), "--method-opt=ratio=2") != lb.end());
  CHECK(std::find(lb.begin(), lb.end(), "--tasks=hotpotqa,samsum") != lb.end());
  CHECK(lb.back() == "--out=out/x/longbench/r");
  const auto fid = run_arguments(runs[5], runs[5].resolved, "d");
  CHECK(std::find(fid.begin(), fid.end(), "--methods=snapkv:ripple@calibration=c.jsonl,ratio=2,window=8") != fid.end());
  CHECK(std::find(fid.begin(), fid.end(), "--budgets=32") != fid.end());
}

TEST_CASE("sweep grid: a full-cache method runs once, not once per budget", "[experiments][sweep]") {
  const auto runs = expand("[sweep]\nkinds = longbench\n[common]\nmethod = full | snapkv\nbudget = 64 | 128\n");
  REQUIRE(runs.size() == 3);
  CHECK(runs[0].full);
  CHECK(runs[0].budget == 0);
  CHECK(runs[0].name.rfind("full-", 0) == 0);
  CHECK(runs[1].budget == 64);
  // Only full methods: no budget needed.
  CHECK(expand("[sweep]\nkinds = longbench\n[common]\nmethod = full\n").size() == 1);
}

TEST_CASE("sweep grid: two grid points with the same configuration are an error naming both", "[experiments][sweep]") {
  // snapkv is snapkv:uniform.
  auto e = error_of([] { expand("[sweep]\nkinds = fidelity\n[common]\nmethod = snapkv | snapkv:uniform\nbudget = 64\n"); });
  CHECK_THAT(e, Contains("same fidelity configuration"));
  CHECK_THAT(e, Contains("method=snapkv budget=64"));
  CHECK_THAT(e, Contains("method=snapkv:uniform budget=64"));
  // Equal numbers written differently are the same configuration.
  e = error_of([] { expand("[sweep]\nkinds = fidelity\n[common]\nmethod = ripple\nbudget = 64 | 064\n"); });
  CHECK_THAT(e, Contains("budget=64"));
  CHECK_THAT(e, Contains("budget=064"));
  e = error_of([] { expand("[sweep]\nkinds = fidelity\n[common]\nmethod = ripple\nbudget = 64\n[method.ripple]\nratio = 2 | 2.0\n"); });
  CHECK_THAT(e, Contains("same fidelity configuration"));
}

TEST_CASE("sweep grid: shards split the grid into disjoint parts covering it", "[experiments][sweep]") {
  const auto runs = expand(kDemo);
  std::multiset<std::string> seen;
  for (int i = 0; i < 3; ++i) {
    const auto part = shard_runs(runs, ripplekv::eval::Shard{i, 3});
    for (const auto& r : part) {
      CHECK(r.index % 3 == static_cast<std::size_t>(i));
      seen.insert(r.folder());
    }
  }
  CHECK(seen.size() == runs.size());
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == runs.size());
  CHECK(shard_runs(runs, ripplekv::eval::Shard{}).size() == runs.size());
}

TEST_CASE("sweep files: --set overrides the file, with the same checks", "[experiments][sweep]") {
  auto runs = expand(kDemo, {"model=other.bin", "method.ripple.ratio=8", "longbench.max-samples=5"});
  REQUIRE(runs.size() == 12);  // ripple: one ratio now
  CHECK(runs[0].options.at("model") == "other.bin");
  CHECK(runs[4].resolved.options.at("ratio") == "8");
  CHECK(runs[8].options.at("max-samples") == "5");
  CHECK_THAT(error_of([] { expand(kDemo, {"longbench.max-samples=five"}); }), Contains("--set"));
  CHECK_THAT(error_of([] { expand(kDemo, {"model"}); }), Contains("[section.]key=value"));
}

TEST_CASE("sweep files: bad input is an error naming file, line and key", "[experiments][sweep]") {
  const std::string head = "[sweep]\nkinds = longbench\n[common]\n";
  // Empty grid.
  CHECK_THAT(error_of([&] { expand(head + "model = m\n"); }), Contains("the grid is empty"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv |\nbudget = 4\n"); }), Contains("sweep.ini:4"));
  CHECK_THAT(error_of([] { expand("[common]\nmethod = snapkv\n"); }), Contains("no kinds of run"));
  // Values of the wrong type.
  auto e = error_of([&] { expand(head + "method = snapkv\nbudget = 64 | lots\n"); });
  CHECK_THAT(e, Contains("sweep.ini:5"));
  CHECK_THAT(e, Contains("\"lots\" is not an integer"));
  e = error_of([&] { expand(head + "method = snapkv\nbudget = 64\n[longbench]\nmax-samples = two\n"); });
  CHECK_THAT(e, Contains("sweep.ini:7: max-samples"));
  e = error_of([&] { expand(head + "method = ripple\nbudget = 64\n[method.ripple]\nratio = fast\n"); });
  CHECK_THAT(e, Contains("is not a number"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 0\n"); }), Contains("positive"));
  // Unknown and misplaced keys.
  e = error_of([&] { expand(head + "method = snapkv\nbudget = 64\n[longbench]\nmax-sample = 2\n"); });
  CHECK_THAT(e, Contains("sweep.ini:7"));
  CHECK_THAT(e, Contains("max-sample"));
  CHECK_THAT(e, Contains("max-samples"));  // the valid options are listed
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 64\nout = x\n"); }),
             Contains("not set in a sweep file"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 64\n[longbench]\nratio = 2\n"); }),
             Contains("[method.NAME]"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 64\n[fidelity]\ntexts = t\n"); }),
             Contains("kinds does not list fidelity"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 64\n[method.ripple]\nratio = 2\n"); }),
             Contains("does not list ripple"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 64\nbudget = 32\n"); }),
             Contains("given twice"));
  CHECK_THAT(error_of([&] { expand(head + "method = nosuch\nbudget = 64\n"); }), Contains("unknown method"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\n"); }), Contains("no budget"));
  CHECK_THAT(error_of([&] { expand("[sweep]\nkinds = longbench, magic\n"); }), Contains("unknown kind"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 4\n[other]\nx = 1\n"); }),
             Contains("unknown section [other]"));
  CHECK_THAT(error_of([&] { expand(head + "method = snapkv\nbudget = 4\ninclude = /nonexistent.ini\n"); }),
             Contains("sweep.ini:6: include"));
}

TEST_CASE("sweep files: include reads an INI fragment into the section", "[experiments][sweep]") {
  const auto dir = scratch("include");
  write(dir / "model.ini", "preset = llama3-8b-instruct\nchat-template = llama3\ndtype = bfloat16\n");
  const auto runs = expand("[sweep]\nkinds = longbench, fidelity\n[common]\ninclude = " + (dir / "model.ini").string() +
                           "\nmethod = snapkv\nbudget = 64\n");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].options.at("chat-template") == "llama3");
  CHECK(runs[0].options.at("dtype") == "bfloat16");
  CHECK(runs[1].options.count("chat-template") == 0);  // fidelity has no such option
  CHECK(runs[1].options.at("dtype") == "bfloat16");
}

TEST_CASE("shipped configs: model and method presets hold longbench options only", "[experiments][configs]") {
  const fs::path root = fs::path(RIPPLEKV_SOURCE_DIR) / "configs";
  const auto& longbench = find_run_kind("longbench");
  std::size_t files = 0;
  for (const char* sub : {"models", "methods"}) {
    for (const auto& entry : fs::directory_iterator(root / sub)) {
      if (entry.path().extension() != ".ini") continue;
      ++files;
      for (const auto& e : read_ini_file(entry.path().string()).entries) {
        INFO(e.where() << ": " << e.key);
        CHECK(e.section.empty());
        CHECK((find_kind_option(longbench, e.key) || is_sweep_owned(longbench, e.key)));
      }
    }
  }
  CHECK(files == 15);  // 7 model presets (incl. the two real models) + 8 method presets
  for (const auto& e : read_ini_file((root / "demo.ini").string()).entries) {
    INFO(e.where() << ": " << e.key);
    CHECK((find_kind_option(longbench, e.key) || is_sweep_owned(longbench, e.key)));
  }
}

TEST_CASE("run folders: complete only with every sample and every score", "[experiments][sweep]") {
  const auto dir = scratch("status");
  const auto lb = dir / "lb";
  CHECK_FALSE(longbench_run_status(lb).complete);
  fake_longbench_run(lb, "/m/model", "snapkv", "uniform", 64, {{"hotpotqa", 10.0}, {"trec", 20.0}});
  CHECK(longbench_run_status(lb).complete);
  // A run killed mid-way: one prediction missing.
  write(lb / "trec.jsonl", "{\"pred\": \"a\", \"_id\": \"1\"}\n");
  auto s = longbench_run_status(lb);
  CHECK_FALSE(s.complete);
  CHECK(s.why == "trec.jsonl: 1 of 2 samples");
  fake_longbench_run(lb, "/m/model", "snapkv", "uniform", 64, {{"hotpotqa", 10.0}, {"trec", 20.0}});
  fs::remove(lb / "result.json");
  CHECK_THAT(longbench_run_status(lb).why, Contains("result.json"));

  const auto fid = dir / "fid";
  write(fid / "config.json", "{}");
  CHECK_FALSE(fidelity_run_status(fid).complete);
  const std::string header = "method,budget,texts,positions,kl_mean,kl_p90,kl_max,top1_agreement,kv_fraction,compressed_texts\n";
  write(fid / "fidelity.csv", header + "\"snapkv@window=8,kernel=5\",64,4,128,0.1,0.2,0.3,0.900000,0.400000,4\n");
  CHECK(fidelity_run_status(fid).complete);
  write(fid / "fidelity.csv", header + "\"snapkv\",64,4,128,0.1,0.2");
  CHECK_FALSE(fidelity_run_status(fid).complete);
}

TEST_CASE("tables: runs are labelled by the options in force they recorded", "[experiments][table]") {
  const auto dir = scratch("table_in_force");
  // Both left ratio out; one ran when the default was 2, the other when it was 8.
  fake_longbench_run(dir / "a", "/m/M", "snapkv", "ripple", 64, {{"trec", 50}}, {}, {{"ratio", "2"}, {"window", "32"}});
  fake_longbench_run(dir / "b", "/m/M", "snapkv", "ripple", 64, {{"trec", 60}}, {}, {{"ratio", "8"}, {"window", "32"}});
  fake_longbench_run(dir / "c", "/m/M", "snapkv", "uniform", 64, {{"trec", 55}});
  const auto gathered = gather_results({dir}, preset_name);
  REQUIRE(gathered.longbench.size() == 3);
  CHECK(gathered.longbench[0].id.in_force.at("ratio") == "2");
  CHECK(gathered.longbench[2].id.in_force.empty());
  const auto summary = results_summary(gathered);
  std::map<std::string, double> ratio_by_label;
  for (const auto& run : summary["longbench"]) {
    if (!run["ratio"].is_null()) ratio_by_label[run["label"].get<std::string>()] = run["ratio"].get<double>();
  }
  CHECK(ratio_by_label == std::map<std::string, double>{{"RippleKV (r=2)", 2.0}, {"RippleKV (r=8)", 8.0}});
  CHECK(summary["longbench"][1]["options_in_force"]["window"] == "32");
  CHECK_FALSE(summary["longbench"][2].contains("options_in_force"));
}

TEST_CASE("kept tokens: a RULER folder's <length>/kept logs count, each length's sample once", "[experiments][table]") {
  const auto dir = scratch("kept_ruler");
  const auto line = [](const std::string& id, int prompt, bool compressed, const std::string& kept) {
    return fmt::format("{{\"_id\": \"{}\", \"prompt_tokens\": {}, \"compressed\": {}, \"kept\": {}}}\n", id,
                       prompt, compressed ? "true" : "false", kept);
  };
  // Sample 0 of task a at two lengths (two samples, not one), its shards, a torn line, and a
  // folder that is not a length (ignored).
  ripplekv::test::write_text(dir / "4096/kept/a.shard-0-of-2.jsonl", line("0", 4000, true, "[10, 30]"));
  ripplekv::test::write_text(dir / "4096/kept/a.shard-1-of-2.jsonl", line("1", 4000, true, "[20, 40]") + "{\"_id\": \"2\"");
  ripplekv::test::write_text(dir / "8192/kept/a.jsonl", line("0", 8000, true, "[30, 50]"));
  ripplekv::test::write_text(dir / "tables/kept/a.jsonl", line("9", 1, true, "[1000, 1000]"));
  auto s = ripplekv::eval::summarize_kept_tokens(dir);
  CHECK(s.samples == 3);
  REQUIRE(s.mean_kept.size() == 2);
  CHECK(s.mean_kept[0] == Approx(20.0));
  CHECK(s.mean_kept[1] == Approx(40.0));
  CHECK(s.mean_prompt_tokens == Approx(16000.0 / 3));
  // A run folder's own kept/ (LongBench, needle) counts beside them; an uncompressed line
  // counts only where no line is compressed.
  ripplekv::test::write_text(dir / "kept/b.jsonl", line("0", 100, true, "[60, 80]") + line("1", 50, false, "[50, 50]"));
  s = ripplekv::eval::summarize_kept_tokens(dir);
  CHECK(s.samples == 4);
  CHECK(s.mean_kept[0] == Approx(30.0));
  CHECK(s.mean_kept[1] == Approx(50.0));
  CHECK(s.mean_prompt_tokens == Approx(16100.0 / 4));
}

TEST_CASE("tables: LongBench layout, best per budget in bold, three formats", "[experiments][table]") {
  const auto dir = scratch("table");
  const std::map<std::string, double> full = {{"qasper", 30}, {"hotpotqa", 40}, {"trec", 70}};
  fake_longbench_run(dir / "full", "/m/Mistral-7B", "full", "uniform", 0, full);
  fake_longbench_run(dir / "snap64", "/m/Mistral-7B", "snapkv", "uniform", 64, {{"qasper", 20}, {"hotpotqa", 35.5}, {"trec", 60}});
  fake_longbench_run(dir / "pyr64", "/m/Mistral-7B", "snapkv", "pyramid", 64, {{"qasper", 22}, {"hotpotqa", 35.5}, {"trec", 55}});
  fake_longbench_run(dir / "rip64r2", "/m/Mistral-7B", "snapkv", "ripple", 64, {{"qasper", 21}, {"hotpotqa", 30}, {"trec", 61}},
                     {{"ratio", "2"}});
  fake_longbench_run(dir / "rip64r4", "/m/Mistral-7B", "snapkv", "ripple", 64, {{"qasper", 19}, {"hotpotqa", 30}, {"trec", 50}},
                     {{"ratio", "4"}});
  fake_longbench_run(dir / "snap128", "/m/Mistral-7B", "snapkv", "uniform", 128, {{"qasper", 25}, {"hotpotqa", 38}, {"trec", 66}});
  // `ripplekv table` output under the same root is not a run.
  write(dir / "tables" / "table_config.json", "{}");
  write(dir / "tables" / "fidelity.csv", "table,Method,Budget,row_kind,source,kl_mean\n");
  const auto gathered = gather_results({dir}, preset_name);
  REQUIRE(gathered.longbench.size() == 6);
  CHECK(gathered.fidelity.empty());
  PublishedEntry pub{"Mistral-7B", "SnapKV (paper)", 64, "Paper, Table 1", {{"qasper", 99}, {"hotpotqa", 1}, {"trec", 2}}};
  const auto tables = longbench_tables(gathered.longbench, {pub});
  REQUIRE(tables.size() == 1);
  const auto& t = tables[0];
  REQUIRE(t.blocks.size() == 3);
  CHECK(t.blocks[0].title == "Full cache");
  CHECK(t.blocks[1].title == "KV budget 64 tokens per layer");
  CHECK(t.blocks[1].rows.size() == 5);
  CHECK(t.blocks[1].rows[0].kind == RowKind::kPublished);
  CHECK(t.blocks[1].rows[1].labels[0] == "SnapKV");
  CHECK(t.blocks[1].rows[2].labels[0] == "PyramidKV");
  CHECK(t.blocks[1].rows[3].labels[0] == "RippleKV (r=2)");
  REQUIRE(t.columns.size() == 4);
  CHECK(t.columns[0].key == "qasper");  // LongBench order, not the runs' order
  CHECK(t.columns[0].group == "Single-Doc QA");
  CHECK(t.columns[3].key == "avg");

  const auto marks = best_marks(t);
  // Budget 64, qasper: PyramidKV 22 is best; the published 99 does not compete.
  CHECK(marks[1][2][0]);
  CHECK_FALSE(marks[1][0][0]);
  // hotpotqa: SnapKV and PyramidKV tie at 35.5: both bold.
  CHECK(marks[1][1][1]);
  CHECK(marks[1][2][1]);
  // All runs equal in a column (trec at budget 128 has one run; avg ties need >= 2 runs): see
  // below. A block with one run, and the full-cache block: nothing bold.
  CHECK_FALSE(marks[2][0][0]);
  CHECK_FALSE(marks[0][0][0]);

  const auto md = table_markdown(tables);
  CHECK_THAT(md, Contains("| Single-Doc QA | Multi-Doc QA | Few-shot Learning |"));
  CHECK_THAT(md, Contains("| **Method** | **Budget** | **Qasper** | **HotpotQA** | **TREC** | **Avg** |"));
  CHECK_THAT(md, Contains("| PyramidKV | 64 | **22.00** | **35.50** | 55.00 | 37.50 |"));
  CHECK_THAT(md, Contains("| SnapKV (paper)\u2020 | 64 | 99.00 |"));
  CHECK_THAT(md, Contains("Paper, Table 1"));
  CHECK_THAT(md, Contains("| FullKV | full | 30.00 | 40.00 | 70.00 | 46.67 |"));
  const auto csv = table_csv(tables);
  CHECK_THAT(csv, Contains("table,Method,Budget,row_kind,source,qasper,hotpotqa,trec,avg\n"));
  CHECK_THAT(csv, Contains(",PyramidKV,64,run,"));
  CHECK_THAT(csv, Contains(",22,35.5,55,37.5\n"));
  CHECK_THAT(csv, Contains(",SnapKV (paper),64,published,\"Mistral-7B, Paper, Table 1\",99,1,2,34\n"));
  const auto tex = table_latex(tables);
  CHECK_THAT(tex, Contains("\\begin{tabular}{llrrrr}"));
  CHECK_THAT(tex, Contains("\\toprule"));
  CHECK_THAT(tex, Contains("& & \\multicolumn{1}{c}{Single-Doc QA} & \\multicolumn{1}{c}{Multi-Doc QA} & "
                           "\\multicolumn{1}{c}{Few-shot Learning} & \\\\"));
  CHECK_THAT(tex, Contains("\\cmidrule(lr){3-3}"));
  CHECK_THAT(tex, Contains("PyramidKV & 64 & \\textbf{22.00} & \\textbf{35.50} & 55.00 & 37.50 \\\\"));
  CHECK_THAT(tex, Contains("SnapKV (paper)$^\\dagger$"));
  CHECK_THAT(tex, Contains("\\bottomrule"));
  CHECK_THAT(tex, Contains("\\multicolumn{6}{l}{\\textit{KV budget 64 tokens per layer}}"));

  // Results of another task set: an error naming both folders.
  fake_longbench_run(dir / "other", "/m/Mistral-7B", "snapkv", "uniform", 256, {{"qasper", 1}, {"lcc", 2}});
  const auto mixed = gather_results({dir}, preset_name);
  auto e = error_of([&] { longbench_tables(mixed.longbench, {}); });
  CHECK_THAT(e, Contains("different task sets"));
  CHECK_THAT(e, Contains("other"));
  fs::remove_all(dir / "other");
  // Published numbers of other tasks.
  PublishedEntry wide = pub;
  wide.scores["lcc"] = 5;
  CHECK_THAT(error_of([&] { longbench_tables(gathered.longbench, {wide}); }), Contains("covers other tasks"));
  // The same run twice (a copy): the same row.
  fs::copy(dir / "snap128", dir / "copy", fs::copy_options::recursive);
  CHECK_THAT(error_of([&] { longbench_tables(gather_results({dir}, preset_name).longbench, {}); }),
             Contains("same row"));
}

TEST_CASE("tables: a column where all runs are equal has no best", "[experiments][table]") {
  ResultTable t;
  t.label_headers = {"Method"};
  t.columns = {{"a", "A", "", Better::kHigher}, {"b", "B", "", Better::kHigher}};
  t.blocks = {{"", {{{"x"}, {0.0, 1.0}}, {{"y"}, {0.0, 2.0}}, {{"z"}, {0.004, 2.0}}}}};
  const auto marks = best_marks(t);
  CHECK_FALSE(marks[0][0][0]);  // 0.00, 0.00, 0.00 as printed
  CHECK_FALSE(marks[0][2][0]);
  CHECK_FALSE(marks[0][0][1]);
  CHECK(marks[0][1][1]);
  CHECK(marks[0][2][1]);
}

TEST_CASE("tables: fidelity results, lowest KL and highest top-1 in bold", "[experiments][table]") {
  std::vector<FidelityResult> runs;
  auto add = [&](const std::string& method, int64_t budget, double kl, double top1, const std::string& settings) {
    FidelityResult r;
    r.dir = "/r/" + method + std::to_string(budget);
    r.model = "stories260K";
    r.settings = settings;
    r.id.method = method;
    r.id.budget = budget;
    r.kl_mean = kl;
    r.kl_p90 = kl * 2;
    r.kl_max = kl * 3;
    r.top1 = top1;
    r.kv_fraction = budget / 400.0;
    runs.push_back(r);
  };
  add("snapkv", 32, 0.5, 0.8, "texts=a");
  add("pyramidkv", 32, 0.4, 0.7, "texts=a");
  const auto tables = fidelity_tables(runs);
  REQUIRE(tables.size() == 1);
  const auto md = table_markdown(tables);
  CHECK_THAT(md, Contains("| PyramidKV | 32 | **0.4000** | **0.8000** | **1.2000** | 0.7000 | 0.0800 |"));
  CHECK_THAT(md, Contains("| SnapKV | 32 | 0.5000 | 1.0000 | 1.5000 | **0.8000** | 0.0800 |"));
  add("h2o", 32, 0.1, 0.9, "texts=b");
  CHECK_THAT(error_of([&] { fidelity_tables(runs); }), Contains("different texts"));
}

TEST_CASE("tables: fidelity with per-text values has a KL interval and a paired verdict", "[experiments][table]") {
  const auto dir = scratch("fidelity_texts");
  const std::string header = "method,budget,texts,positions,kl_mean,kl_p90,kl_max,top1_agreement,kv_fraction,compressed_texts\n";
  // One folder per method, as `ripplekv fidelity --out` writes it, over the same 4 texts.
  auto run = [&](const std::string& method, const std::vector<double>& kl) {
    const auto d = dir / method.substr(0, method.find('@'));
    write(d / "config.json", "{\"ripplekv_fidelity_config\": 1, \"options\": {\"model\": \"/m/smol\", \"texts\": \"t.jsonl\"}}");
    double mean = 0;
    std::string texts = "method,budget,text,kl_mean,top1_agreement\n";
    for (std::size_t i = 0; i < kl.size(); ++i) {
      mean += kl[i] / static_cast<double>(kl.size());
      texts += fmt::format("\"{}\",128,{},{},0.5\n", method, i, kl[i]);
    }
    write(d / "fidelity_texts.csv", texts);
    write(d / "fidelity.csv", header + fmt::format("\"{}\",128,4,256,{},1,2,0.5,0.25,4\n", method, mean));
  };
  run("snapkv", {0.50, 0.40, 0.60, 0.30});
  run("h2o", {0.30, 0.20, 0.40, 0.10});                       // the best baseline (lowest KL)
  run("snapkv:ripple@ratio=2", {0.20, 0.10, 0.30, 0.00});      // 0.1 below H2O on every text: a win
  run("streamingllm:ripple@ratio=2", {0.35, 0.25, 0.45, 0.15});  // 0.05 above on every text: a loss
  run("ripple@ratio=1.5", {0.30, 0.20, 0.40, 0.10});             // the preset, equal to H2O: a tie
  // Presets name only the method in fidelity.csv: their parts come from the preset table.
  const auto parts = [](const std::string& name) -> std::optional<std::pair<std::string, std::string>> {
    if (name == "snapkv") return std::make_pair(std::string("snapkv"), std::string("uniform"));
    if (name == "h2o") return std::make_pair(std::string("h2o"), std::string("uniform"));
    if (name == "ripple") return std::make_pair(std::string("snapkv"), std::string("ripple"));
    return std::nullopt;
  };
  const auto gathered = gather_results({dir}, preset_name, parts);
  REQUIRE(gathered.fidelity.size() == 5);
  for (const auto& r : gathered.fidelity) CHECK(r.text_kl.size() == 4);

  const auto md = table_markdown(fidelity_tables(gathered.fidelity));
  CHECK_THAT(md, Contains("KL mean 95% CI"));
  CHECK_THAT(md, Contains("percentile bootstrap over texts"));
  const auto ci = kl_interval(gathered.fidelity[0]);
  REQUIRE(ci);
  CHECK(ci->lo < gathered.fidelity[0].kl_mean);
  CHECK(ci->hi > gathered.fidelity[0].kl_mean);

  const auto paired = paired_fidelity_tables(gathered.fidelity);
  REQUIRE(paired.size() == 1);
  REQUIRE(paired[0].blocks.size() == 1);
  std::map<std::string, const TableRow*> by_selector;
  for (const auto& r : paired[0].blocks[0].rows) by_selector[r.source.substr(r.source.rfind('/') + 1)] = &r;
  REQUIRE(by_selector.size() == 3);
  const auto& preset = *by_selector.at("ripple");  // method text "ripple@ratio=1.5": name and options
  CHECK(preset.labels[0] == "RippleKV");
  CHECK(preset.labels[3] == "tie");
  CHECK(*preset.values[0] == Approx(0.0).margin(1e-12));
  CHECK(preset.labels[4] == "SnapKV");  // its selector's uniform run: 0.2 lower KL on every text
  CHECK(preset.labels[5] == "win");
  CHECK(*preset.values[3] == Approx(-0.2));
  const auto& win = *by_selector.at("snapkv:ripple");
  CHECK(win.labels[2] == "H2O");
  CHECK(win.labels[3] == "win");
  CHECK(*win.values[0] == Approx(-0.1));
  CHECK(*win.values[1] == Approx(-0.1));  // the same difference on every text: a point interval
  const auto& loss = *by_selector.at("streamingllm:ripple");
  CHECK(loss.labels[3] == "loss");
  CHECK(*loss.values[0] == Approx(0.05));
  CHECK(loss.labels[4] == "-");  // no StreamingLLM run to compare with
  CHECK_FALSE(loss.values[3]);
  CHECK(win.labels[4] == "SnapKV");
  CHECK(*win.values[3] == Approx(-0.3));

  // A torn per-text file is an error naming it.
  write(dir / "h2o" / "fidelity_texts.csv", "method,budget,text,kl_mean,top1_agreement\n\"h2o\",128,0,0.3\n");
  CHECK_THAT(error_of([&] { gather_results({dir}, preset_name); }), Contains("fidelity_texts.csv:2: 4 fields, expected 5"));
  write(dir / "h2o" / "fidelity_texts.csv", "method,budget,text,kl_mean,top1_agreement\n\"h2o\",128,0,0.3,1\n");
  CHECK_THAT(error_of([&] { gather_results({dir}, preset_name); }), Contains("1 texts for h2o at budget 128"));
}

TEST_CASE("published numbers: the shipped file reads, bad files are clear errors", "[experiments][table]") {
  const auto path = fs::path(RIPPLEKV_SOURCE_DIR) / "configs" / "published" / "longbench.json";
  const auto entries = read_published_file(path);
  REQUIRE(entries.size() >= 2);
  for (const auto& e : entries) {
    CHECK(e.scores.size() == 16);
    CHECK_FALSE(e.source.empty());
  }
  CHECK_THAT(error_of([&] { select_published(entries, "", "f.json"); }), Contains("--published-model"));
  CHECK(select_published(entries, "mistral-7b-instruct-v0.2", "f.json").size() == 1);
  CHECK_THAT(error_of([&] { select_published(entries, "gpt-5", "f.json"); }), Contains("has no numbers"));
  const auto dir = scratch("published");
  write(dir / "bad.json", R"({"ripplekv_published_longbench": 1, "entries": [{"model": "m", "method": "x",
      "budget": "full", "source": "s", "scores": {"hotpot": 1}}]})");
  auto e = error_of([&] { read_published_file(dir / "bad.json"); });
  CHECK_THAT(e, Contains("entries[0]"));
  CHECK_THAT(e, Contains("hotpot"));
  write(dir / "nosource.json", R"({"ripplekv_published_longbench": 1, "entries": [{"model": "m", "method": "x",
      "budget": 64, "source": "", "scores": {"trec": 1}}]})");
  CHECK_THAT(error_of([&] { read_published_file(dir / "nosource.json"); }), Contains("source"));
}

TEST_CASE("run labels name only the options that differ", "[experiments][table]") {
  RunIdentity a{"ripple", "snapkv", "ripple", false, 64, {{"ratio", "2"}, {"profile", "/x/p1.json"}}};
  RunIdentity b{"ripple", "snapkv", "ripple", false, 64, {{"ratio", "4"}, {"profile", "/x/p1.json"}}};
  RunIdentity c{"snapkv", "snapkv", "uniform", false, 64, {}};
  const auto labels = run_labels({{"m", a}, {"m", b}, {"m", c}});
  CHECK(labels == std::vector<std::string>{"RippleKV (r=2)", "RippleKV (r=4)", "SnapKV"});
  RunIdentity d = b;
  d.options["profile"] = "/y/p2.json";
  CHECK(run_labels({{"m", a}, {"m", d}})[1] == "RippleKV (r=4, profile=p2.json)");
  // An option left out shows the default its policy declares, and equals it given explicitly.
  RunIdentity e{"ripple_prompt", "snapkv", "ripple_prompt", false, 64, {}};
  RunIdentity f{"ripple_prompt", "snapkv", "ripple_prompt", false, 64, {{"normalize", "rank"}}};
  RunIdentity g{"ripple_prompt", "snapkv", "ripple_prompt", false, 64, {{"normalize", "minmax"}}};
  CHECK(run_labels({{"m", e}, {"m", f}}) ==
        std::vector<std::string>{"RippleKV per prompt (normalize=minmax)", "RippleKV per prompt (normalize=rank)"});
  CHECK(run_labels({{"m", e}, {"m", g}}) == std::vector<std::string>{"RippleKV per prompt", "RippleKV per prompt"});
  // Per policy: CAKE's selector declares kernel=5, SnapKV's kernel=7.
  RunIdentity h{"cake", "cake", "cake", false, 64, {}};
  RunIdentity i{"cake", "cake", "cake", false, 64, {{"kernel", "7"}}};
  CHECK(run_labels({{"m", h}, {"m", i}}) == std::vector<std::string>{"CAKE (kernel=5)", "CAKE (kernel=7)"});
  // A run that recorded its options in force is labelled by them, not by today's defaults: two
  // runs that both left ratio out, made under different defaults, stay apart.
  RunIdentity j{"ripple", "snapkv", "ripple", false, 64, {}, {{"ratio", "2"}, {"normalize", "minmax"}}};
  RunIdentity k{"ripple", "snapkv", "ripple", false, 64, {}, {{"ratio", "8"}, {"normalize", "minmax"}}};
  CHECK(run_labels({{"m", j}, {"m", k}}) == std::vector<std::string>{"RippleKV (r=2)", "RippleKV (r=8)"});
  RunIdentity legacy{"ripple", "snapkv", "ripple", false, 64, {}};  // no record: today's default, r=2
  CHECK(run_labels({{"m", legacy}, {"m", k}}) == std::vector<std::string>{"RippleKV (r=2)", "RippleKV (r=8)"});
  CHECK(run_labels({{"m", legacy}, {"m", j}}) == std::vector<std::string>{"RippleKV", "RippleKV"});
  // A key only recorded, with no default, unknown for a run from before the record (a fidelity
  // run's --profile): not shown as "profile=default".
  RunIdentity rec{"ripple", "snapkv", "ripple", false, 64, {}, {{"ratio", "2"}, {"profile", "/x/p1.json"}}};
  CHECK(run_labels({{"m", legacy}, {"m", rec}}) == std::vector<std::string>{"RippleKV", "RippleKV"});
}

namespace {
// Per-sample scores beside a fake run: ids s0, s1, ... unless given.
void fake_sample_scores(const fs::path& dir, const std::map<std::string, std::vector<double>>& scores,
                        const std::string& id_prefix = "s") {
  ripplekv::eval::SampleScores s;
  for (const auto& [task, v] : scores) {
    auto& c = s[task];
    c.scores = v;
    for (std::size_t i = 0; i < v.size(); ++i) c.ids.push_back(id_prefix + std::to_string(i));
  }
  ripplekv::eval::write_sample_scores(dir / "sample_scores.json", s);
}
std::map<std::string, double> means(const std::map<std::string, std::vector<double>>& scores) {
  std::map<std::string, double> out;
  for (const auto& [t, v] : scores) {
    double sum = 0;
    for (double x : v) sum += x;
    out[t] = sum / static_cast<double>(v.size());
  }
  return out;
}

// A uniform SnapKV run ("snap") and a RippleKV r=2 run ("rip") at budget 128 in `dir`, with
// these per-sample scores per task.
void fake_snapkv_and_ripple(const fs::path& dir, const std::map<std::string, std::vector<double>>& snap,
                            const std::map<std::string, std::vector<double>>& rip) {
  fake_longbench_run(dir / "snap", "/m/M", "snapkv", "uniform", 128, means(snap));
  fake_sample_scores(dir / "snap", snap);
  fake_longbench_run(dir / "rip", "/m/M", "snapkv", "ripple", 128, means(rip), {{"ratio", "2"}});
  fake_sample_scores(dir / "rip", rip);
}
}  // namespace

TEST_CASE("tables: one sample in a task gives no interval and no verdict", "[experiments][table]") {
  const auto dir = scratch("table_one_sample");
  // One sample per task (RULER --samples 1): a bootstrap would return the estimate as both bounds.
  const std::map<std::string, std::vector<double>> snap = {{"vt", {40}}, {"fwe", {33}}};
  const std::map<std::string, std::vector<double>> rip = {{"vt", {80}}, {"fwe", {67}}};
  fake_snapkv_and_ripple(dir, snap, rip);
  const auto gathered = gather_results({dir}, preset_name);
  REQUIRE(gathered.longbench.size() == 2);
  CHECK_FALSE(avg_interval(gathered.longbench[0]));
  const auto paired = paired_difference_tables(gathered.longbench);
  REQUIRE(paired.size() == 1);
  const auto& row = paired[0].blocks.at(0).rows.at(0);
  CHECK(row.labels[3] == "no interval (a task has 1 sample)");
  CHECK(row.labels[5] == "no interval (a task has 1 sample)");
  REQUIRE(row.values[0]);
  CHECK(*row.values[0] == Approx(37.0));  // the estimate is still shown: (80 - 40 + 67 - 33) / 2
  CHECK_FALSE(row.values[1]);
  CHECK_FALSE(row.values[2]);
}

TEST_CASE("tables: a baseline scored on more tasks than RippleKV is not paired with it", "[experiments][table]") {
  const auto dir = scratch("table_more_tasks");
  // SnapKV on vt and fwe, RippleKV on vt alone: a difference over vt would sit beside a best
  // baseline chosen by an Avg over both tasks, so the pair is refused either way round.
  const std::map<std::string, std::vector<double>> snap = {{"vt", {40, 60, 20}}, {"fwe", {33, 30, 36}}};
  const std::map<std::string, std::vector<double>> rip = {{"vt", {80, 90, 70}}};
  fake_snapkv_and_ripple(dir, snap, rip);
  const auto gathered = gather_results({dir}, preset_name);
  REQUIRE(gathered.longbench.size() == 2);
  const auto paired = paired_difference_tables(gathered.longbench);
  REQUIRE(paired.size() == 1);
  const auto& row = paired[0].blocks.at(0).rows.at(0);
  CHECK(row.labels[3] == "different samples");
  CHECK_FALSE(row.values[0]);
  CHECK(row.labels[5] == "different samples");
  CHECK_FALSE(row.values[3]);
}

TEST_CASE("tables: Avg with a bootstrap interval, ripple minus the best baseline with a paired verdict",
          "[experiments][table]") {
  const auto dir = scratch("table_ci");
  const std::vector<double> base_q = {10, 40, 35, 0, 80, 55, 20, 65, 30, 45, 50, 25};
  const std::vector<double> base_t = {100, 0, 100, 100, 0, 100, 100, 0, 100, 100};
  auto plus = [](std::vector<double> v, double d) {
    for (auto& x : v) x += d;
    return v;
  };
  const std::map<std::string, std::vector<double>> snap = {{"qasper", base_q}, {"trec", base_t}};
  const std::map<std::string, std::vector<double>> pyr = {{"qasper", plus(base_q, -3)}, {"trec", base_t}};
  const std::map<std::string, std::vector<double>> win = {{"qasper", plus(base_q, 4)}, {"trec", base_t}};
  const std::map<std::string, std::vector<double>> tie = {{"qasper", {12, 38, 35, 2, 78, 55, 22, 63, 30, 47, 48, 25}},
                                                           {"trec", base_t}};
  const struct {
    const char* name;
    const char* selector;
    const char* allocator;
    const char* ratio;
    const std::map<std::string, std::vector<double>>* scores;
    const char* ids;
  } runs[] = {{"snap", "snapkv", "uniform", "", &snap, "s"},  {"pyr", "snapkv", "pyramid", "", &pyr, "s"},
              {"r2", "snapkv", "ripple", "2", &win, "s"},     {"r4", "snapkv", "ripple", "4", &tie, "s"},
              {"r8", "snapkv", "ripple", "8", &win, "other"}, {"rp", "snapkv", "ripple_prompt", "", &win, "s"}};
  for (const auto& r : runs) {
    std::map<std::string, std::string> options;
    if (*r.ratio) options["ratio"] = r.ratio;
    fake_longbench_run(dir / r.name, "/m/SmolLM2", r.selector, r.allocator, 128, means(*r.scores), options);
    fake_sample_scores(dir / r.name, *r.scores, r.ids);
  }
  fake_longbench_run(dir / "old", "/m/SmolLM2", "snapkv", "uniform", 256, {{"qasper", 1}, {"trec", 2}});  // no samples
  const auto gathered = gather_results({dir}, preset_name);
  REQUIRE(gathered.longbench.size() == 7);

  const auto tables = longbench_tables(gathered.longbench, {});
  REQUIRE(tables.size() == 1);
  const auto& t = tables[0];
  REQUIRE(t.blocks.size() == 2);
  const auto& row = t.blocks[0].rows[0];  // SnapKV at 128
  CHECK(row.labels[0] == "SnapKV");
  REQUIRE(row.interval);
  CHECK(row.interval->first < *row.values.back());
  CHECK(row.interval->second > *row.values.back());
  CHECK_FALSE(t.blocks[1].rows[0].interval);  // scored without per-sample scores
  const auto md = table_markdown(tables);
  CHECK_THAT(md, Contains("**Avg 95% CI**"));
  CHECK_THAT(md, Contains(fmt::format("[{:.2f}, {:.2f}] |", row.interval->first, row.interval->second)));
  CHECK_THAT(table_csv(tables), Contains(",avg_ci95_lo,avg_ci95_hi\n"));
  CHECK_THAT(table_latex(tables), Contains("Avg 95\\% CI"));
  // summary.json carries the interval for the plots (null without per-sample scores).
  const auto summary = results_summary(gathered);
  int with_ci = 0;
  for (const auto& run : summary["longbench"]) with_ci += run["avg_ci95"].is_array() ? 1 : 0;
  CHECK(with_ci == 6);

  const auto paired = paired_difference_tables(gathered.longbench);
  REQUIRE(paired.size() == 1);
  REQUIRE(paired[0].blocks.size() == 1);  // budget 256 has no ripple run
  const auto& rows = paired[0].blocks[0].rows;
  REQUIRE(rows.size() == 4);
  std::map<std::string, const TableRow*> by_label;
  for (const auto& r : rows) by_label[r.labels[0]] = &r;
  const auto& r2 = *by_label.at("RippleKV (r=2)");
  CHECK(r2.labels[2] == "SnapKV");  // the best baseline: not PyramidKV, and no RippleKV run
  CHECK(r2.labels[3] == "win");     // +4 on every qasper sample: (4 + 0) / 2 = 2 on Avg
  CHECK(*r2.values[0] == Approx(2.0));
  CHECK(*r2.values[1] == Approx(2.0));
  CHECK(r2.labels[4] == "SnapKV");  // the same selector with uniform budgets
  CHECK(r2.labels[5] == "win");
  CHECK(*r2.values[3] == Approx(2.0));
  const auto& r4 = *by_label.at("RippleKV (r=4)");
  CHECK(r4.labels[3] == "tie");
  CHECK(*r4.values[1] < 0);
  CHECK(*r4.values[2] > 0);
  // RippleKV measured per prompt is paired like the profile-based runs, never a baseline.
  const auto& rp = *by_label.at("RippleKV per prompt");
  CHECK(rp.labels[2] == "SnapKV");
  CHECK(rp.labels[3] == "win");
  CHECK(*rp.values[0] == Approx(2.0));
  const auto& r8 = *by_label.at("RippleKV (r=8)");
  CHECK(r8.labels[3] == "different samples");
  CHECK_FALSE(r8.values[0]);
  CHECK(r8.labels[5] == "different samples");
  CHECK_FALSE(r8.values[3]);
}

namespace {
// Marks a fake run as drawn from generated samples (RULER's --seed), as `ripplekv ruler` does.
void mark_generated(const fs::path& dir, int seed) {
  auto config = nlohmann::json::parse(read(dir / "config.json"));
  config["run"]["benchmark"] = "ruler";
  config["run"]["data"] = "generated";
  config["run"]["seed"] = seed;
  write(dir / "config.json", config.dump());
}
}  // namespace

TEST_CASE("tables: --pool makes one row of runs on different samples, and refuses a sample twice",
          "[experiments][table]") {
  const auto dir = scratch("table_pool");
  const std::vector<double> q42 = {10, 40, 35, 0, 80, 55}, q43 = {20, 30, 65, 45, 50, 25};
  const std::vector<double> t42 = {100, 0, 100}, t43 = {0, 100, 100};
  auto plus = [](std::vector<double> v, double d) {
    for (auto& x : v) x += d;
    return v;
  };
  // Seed 42: SnapKV, RippleKV r=4 and H2O; seed 43: SnapKV and RippleKV r=4. RippleKV is 4 points
  // above SnapKV on every qasper sample of both sets.
  struct Run {
    std::string folder, selector, allocator;
    int seed;
    std::map<std::string, std::vector<double>> scores;
  };
  const std::vector<Run> runs = {
      {"s42/snap", "snapkv", "uniform", 42, {{"qasper", q42}, {"trec", t42}}},
      {"s42/ripple", "snapkv", "ripple", 42, {{"qasper", plus(q42, 4)}, {"trec", t42}}},
      {"s42/h2o", "h2o", "uniform", 42, {{"qasper", plus(q42, 3)}, {"trec", t42}}},
      {"s43/snap", "snapkv", "uniform", 43, {{"qasper", q43}, {"trec", t43}}},
      {"s43/ripple", "snapkv", "ripple", 43, {{"qasper", plus(q43, 4)}, {"trec", t43}}},
  };
  for (const auto& r : runs) {
    fake_longbench_run(dir / r.folder, "/m/SmolLM2", r.selector, r.allocator, 128, means(r.scores));
    fake_sample_scores(dir / r.folder, r.scores);  // ids s0, s1, ... in both sets
    mark_generated(dir / r.folder, r.seed);
  }
  const auto gathered = gather_results({dir / "s42", dir / "s43"}, preset_name);
  REQUIRE(gathered.longbench.size() == 5);
  CHECK(gathered.longbench[0].sample_set == "seed 42");
  CHECK_THAT(error_of([&] { longbench_tables(gathered.longbench, {}); }), Contains("--pool"));

  const auto pooled = pool_sample_sets(gathered.longbench);
  REQUIRE(pooled.runs.size() == 3);
  std::map<std::string, const LongBenchResult*> by_method;
  for (const auto& r : pooled.runs) by_method[r.id.method] = &r;
  const auto& snap = *by_method.at("snapkv");
  CHECK(snap.pooled_from.size() == 2);
  CHECK(snap.sample_set == "seed 42 + seed 43");
  REQUIRE(snap.samples.at("qasper").ids.size() == 12);
  CHECK(snap.samples.at("qasper").ids[0] == "seed 42/s0");
  CHECK(snap.samples.at("qasper").ids[6] == "seed 43/s0");
  // The mean of all 12 qasper samples (455 / 12 = 37.916...), rounded like the scorers.
  CHECK(snap.scores.at("qasper") == 37.92);
  CHECK(snap.scores.at("trec") == 66.67);
  CHECK(*snap.avg == 52.3);  // (37.92 + 66.67) / 2: the double just above 52.295, rounded as Python
  CHECK_THAT(run_source(snap), Contains(" + "));
  CHECK(by_method.at("h2o")->pooled_from.empty());
  CHECK(by_method.at("h2o")->scores.at("qasper") == Approx(238.0 / 6));  // a lone run keeps its own numbers
  // H2O covers seed 42 only: said, by name.
  REQUIRE(pooled.uneven.size() == 1);
  CHECK_THAT(pooled.uneven[0], Contains("H2O"));
  CHECK_THAT(pooled.uneven[0], Contains("seed 42 + seed 43, 18 samples"));

  const auto tables = longbench_tables(pooled.runs, {});
  REQUIRE(tables.size() == 1);
  const auto paired = paired_difference_tables(pooled.runs);
  REQUIRE(paired.size() == 1);
  const auto& row = paired[0].blocks.at(0).rows.at(0);
  CHECK(row.labels[0] == "RippleKV");
  CHECK(row.labels[4] == "SnapKV");
  CHECK(row.labels[5] == "win");  // +4 on all 12 qasper samples: +2 on Avg, on both sample sets
  CHECK(*row.values[3] == Approx(2.0));
  // H2O has the best Avg but ran on seed 42 only: the best baseline on the same samples is SnapKV.
  CHECK(by_method.at("h2o")->avg > snap.avg);
  CHECK(row.labels[2] == "SnapKV");
  CHECK(row.labels[3] == "win");
  CHECK(*row.values[0] == Approx(2.0));

  // The same seed in two folders is the same samples: refused, naming both.
  fs::copy(dir / "s42", dir / "again", fs::copy_options::recursive);
  const auto twice = gather_results({dir / "s42", dir / "again"}, preset_name);
  const auto e = error_of([&] { pool_sample_sets(twice.longbench); });
  CHECK_THAT(e, Contains("seed 42/s0"));
  CHECK_THAT(e, Contains((dir / "again").string()));
  CHECK_THAT(e, Contains("pass only one"));

  // Runs made differently (here another dtype) are not pooled: refused, naming the setting.
  fs::copy(dir / "s43", dir / "f32", fs::copy_options::recursive);
  for (const auto* m : {"snap", "ripple"}) {
    auto config = nlohmann::json::parse(read(dir / "f32" / m / "config.json"));
    config["run"]["dtype"] = "float32";
    write(dir / "f32" / m / "config.json", config.dump());
  }
  fs::copy(dir / "s42", dir / "b16", fs::copy_options::recursive);
  for (const auto* m : {"snap", "ripple", "h2o"}) {
    auto config = nlohmann::json::parse(read(dir / "b16" / m / "config.json"));
    config["run"]["dtype"] = "bfloat16";
    write(dir / "b16" / m / "config.json", config.dump());
  }
  const auto mixed = gather_results({dir / "b16", dir / "f32"}, preset_name);
  const auto why = error_of([&] { pool_sample_sets(mixed.longbench); });
  CHECK_THAT(why, Contains("made differently (dtype: "));
  CHECK_THAT(why, Contains("\"float32\""));
  CHECK_THAT(why, Contains("\"bfloat16\""));
  CHECK_THAT(why, Contains((dir / "f32").string()));

  // A run without per-sample scores cannot be pooled.
  fake_longbench_run(dir / "old/snap", "/m/SmolLM2", "snapkv", "uniform", 128, means(runs[3].scores));
  mark_generated(dir / "old/snap", 44);
  const auto old = gather_results({dir / "s42", dir / "old"}, preset_name);
  CHECK_THAT(error_of([&] { pool_sample_sets(old.longbench); }), Contains("no per-sample scores"));

  // LongBench runs keep their files' ids: other samples pool, the same ones are refused.
  fake_longbench_run(dir / "lb1/snap", "/m/SmolLM2", "snapkv", "uniform", 128, means(runs[0].scores));
  fake_sample_scores(dir / "lb1/snap", runs[0].scores, "a");
  fake_longbench_run(dir / "lb2/snap", "/m/SmolLM2", "snapkv", "uniform", 128, means(runs[3].scores));
  fake_sample_scores(dir / "lb2/snap", runs[3].scores, "b");
  const auto lb = pool_sample_sets(gather_results({dir / "lb1", dir / "lb2"}, preset_name).longbench);
  REQUIRE(lb.runs.size() == 1);
  CHECK(lb.runs[0].samples.at("qasper").ids[6] == "b0");
  CHECK(lb.runs[0].scores.at("qasper") == 37.92);
  CHECK_THAT(error_of([&] { pool_sample_sets(gather_results({dir / "lb1", dir / "lb1/snap/.."}, preset_name).longbench); }),
             Contains("(no error)"));  // one folder given twice is read once
}

TEST_CASE("tables: --pool-across-tasks makes one row of runs on other tasks", "[experiments][table]") {
  const auto dir = scratch("table_pool_tasks");
  using Scores = std::map<std::string, std::vector<double>>;
  auto plus = [](Scores s, double d) {
    for (auto& [task, v] : s) {
      for (auto& x : v) x += d;
    }
    return s;
  };
  // RULER at 32k: seeds 42 and 43 on two tasks, seed 42 on a third one in a folder of its own.
  // PyramidKV ran on the third task and on seed 43 only, so its first run has the third task.
  const Scores six42 = {{"niah_single_2@32768", {90, 0}}, {"vt@32768", {60, 80}}};
  const Scores six43 = {{"niah_single_2@32768", {90, 90}}, {"vt@32768", {20, 40}}};
  const Scores rest42 = {{"cwe@32768", {50, 70}}};
  struct Run {
    std::string folder, selector, allocator;
    int seed;
    Scores scores;
  };
  const std::vector<Run> runs = {
      {"a/snap", "snapkv", "uniform", 42, six42},          {"a/ripple", "snapkv", "ripple", 42, plus(six42, 4)},
      {"b/snap", "snapkv", "uniform", 42, rest42},         {"b/ripple", "snapkv", "ripple", 42, plus(rest42, 4)},
      {"b/pyramid", "snapkv", "pyramid", 42, {{"cwe@32768", {40, 40}}}},
      {"c/snap", "snapkv", "uniform", 43, six43},          {"c/ripple", "snapkv", "ripple", 43, plus(six43, 4)},
      {"c/pyramid", "snapkv", "pyramid", 43, plus(six43, -20)},
  };
  for (const auto& r : runs) {
    fake_longbench_run(dir / r.folder, "/m/Qwen", r.selector, r.allocator, 256, means(r.scores));
    fake_sample_scores(dir / r.folder, r.scores);
    mark_generated(dir / r.folder, r.seed);
  }
  const auto gathered = gather_results({dir / "a", dir / "b", dir / "c"}, preset_name);
  REQUIRE(gathered.longbench.size() == 8);
  // Without it a row covers one task set: the two sets' rows cannot share a table.
  const auto apart = pool_sample_sets(gathered.longbench);
  CHECK(apart.runs.size() == 6);  // SnapKV and RippleKV: one row per task set; PyramidKV: two
  CHECK_THAT(error_of([&] { longbench_tables(apart.runs, {}); }), Contains("different task sets"));

  const auto pooled = pool_sample_sets(gathered.longbench, true);
  REQUIRE(pooled.runs.size() == 3);
  std::map<std::string, const LongBenchResult*> by;
  for (const auto& r : pooled.runs) by[r.id.method] = &r;
  const std::vector<std::string> all = {"niah_single_2@32768", "vt@32768", "cwe@32768"};
  const auto& snap = *by.at("snapkv");
  CHECK(snap.tasks == all);  // the order the tasks first appear in
  CHECK(by.at("pyramidkv")->tasks == all);  // its own first run started with cwe
  CHECK(snap.pooled_from.size() == 3);
  CHECK(snap.samples.at("niah_single_2@32768").ids ==
        std::vector<std::string>{"seed 42/s0", "seed 42/s1", "seed 43/s0", "seed 43/s1"});
  CHECK(snap.scores.at("niah_single_2@32768") == 67.5);
  CHECK(snap.scores.at("vt@32768") == 50.0);
  CHECK(snap.scores.at("cwe@32768") == 60.0);  // seed 42 only, its own samples
  CHECK(*snap.avg == 59.17);                   // (67.5 + 50 + 60) / 3, each task counted once
  CHECK(by.at("pyramidkv")->scores.at("cwe@32768") == 40.0);

  const auto tables = longbench_tables(pooled.runs, {});
  REQUIRE(tables.size() == 1);
  const auto paired = paired_difference_tables(pooled.runs);
  REQUIRE(paired.size() == 1);
  const auto& row = paired[0].blocks.at(0).rows.at(0);
  CHECK(row.labels[2] == "SnapKV");  // PyramidKV did not run on seed 42's two tasks
  CHECK(row.labels[3] == "win");     // +4 on every sample of every task
  CHECK(*row.values[0] == Approx(4.0));
  // Another resample count reaches every interval and says so.
  BootstrapOptions many;
  many.resamples = 5000;
  CHECK_THAT(table_markdown(longbench_tables(pooled.runs, {}, many)), Contains("(5000 resamples"));
  CHECK_THAT(table_markdown(paired_difference_tables(pooled.runs, many)), Contains("(5000 resamples)"));
  CHECK_THAT(table_markdown(tables), Contains("(2000 resamples"));
  const auto default_ci = avg_interval(snap), many_ci = avg_interval(snap, many);
  REQUIRE(default_ci);
  REQUIRE(many_ci);
  CHECK(default_ci->lo != many_ci->lo);  // another draw
  CHECK(results_summary(GatheredResults{pooled.runs, {}, {}}, many)["longbench"][0]["avg_ci95"][0] ==
        avg_interval(pooled.runs[0], many)->lo);

  // The same sample in two runs is still refused.
  fs::copy(dir / "b", dir / "b2", fs::copy_options::recursive);
  const auto e = error_of([&] { pool_sample_sets(gather_results({dir / "a", dir / "b", dir / "b2"}, preset_name).longbench, true); });
  CHECK_THAT(e, Contains("seed 42/s0 of cwe@32768"));
  CHECK_THAT(e, Contains("pass only one"));
}

TEST_CASE("tables: --pool keeps runs apart that ran under different defaults", "[experiments][table]") {
  const auto dir = scratch("table_pool_in_force");
  const std::map<std::string, std::vector<double>> a = {{"trec", {100, 0}}}, b = {{"trec", {0, 100}}};
  // Both left ratio out: seed 42 ran when the default was 2, seed 43 when it was 8.
  fake_longbench_run(dir / "s42/r", "/m/M", "snapkv", "ripple", 128, means(a), {}, {{"ratio", "2"}});
  fake_longbench_run(dir / "s43/r", "/m/M", "snapkv", "ripple", 128, means(b), {}, {{"ratio", "8"}});
  // A run that gave ratio=2 explicitly and a legacy one that left it out (today's default, 2).
  fake_longbench_run(dir / "s42/g", "/m/M", "snapkv", "ripple", 256, means(a), {{"ratio", "2"}});
  fake_longbench_run(dir / "s43/g", "/m/M", "snapkv", "ripple", 256, means(b));
  for (const auto* f : {"s42/r", "s42/g", "s43/r", "s43/g"}) {
    fake_sample_scores(dir / f, f[2] == '2' ? a : b);
    mark_generated(dir / f, f[2] == '2' ? 42 : 43);
  }
  const auto pooled = pool_sample_sets(gather_results({dir / "s42", dir / "s43"}, preset_name).longbench);
  std::map<int64_t, int> rows_per_budget;
  for (const auto& r : pooled.runs) ++rows_per_budget[r.id.budget];
  CHECK(rows_per_budget == std::map<int64_t, int>{{128, 2}, {256, 1}});
  CHECK(effective_options(pooled.runs[0].id).at("window") == "32");  // the catalog default
}
