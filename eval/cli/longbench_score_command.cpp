// `ripplekv longbench-score`: scores a folder of LongBench predictions in the official layout
// (<task>.jsonl, from ripplekv or pred.py) as the official eval.py does, writing result.json
// (+ list_result.json) and a Markdown / CSV table.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "eval/cli/command.h"
#include "eval/longbench_score.h"
#include "eval/run_config.h"

namespace ripplekv::cli {

int run_longbench_score(const std::vector<std::string>& args) {
  std::string pred, out, on_bad_line = "stop";
  bool longbench_e = false, skip_unsupported = false;
  po::options_description desc;
  desc.add_options()("pred", po::value<std::string>(&pred)->required(), "folder of <task>.jsonl prediction files")(
      "out", po::value<std::string>(&out)->default_value(""), "where the score files go (default: the --pred folder when ripplekv wrote it, else a sibling "
      "<pred>-scores folder: files ripplekv did not write are never overwritten)")(
      "e", po::bool_switch(&longbench_e), "LongBench-E: scores per length bucket (0-4k, 4-8k, 8k+)")(
      "skip-unsupported", po::bool_switch(&skip_unsupported),
      "skip tasks whose metric needs jieba (multifieldqa_zh, dureader, vcsum) instead of failing")(
      "on-bad-line", po::value<std::string>(&on_bad_line)->default_value(on_bad_line),
      "a malformed prediction line: skip (with a warning) | stop");
  po::variables_map vm;
  if (!parse_options("longbench-score", args, desc, vm)) return 0;
  if (!out.empty()) require_out_folder(out);
  if (on_bad_line != "skip" && on_bad_line != "stop") {
    throw UsageError(fmt::format("--on-bad-line \"{}\": choose skip or stop", on_bad_line));
  }
  eval::ScoreOptions options;
  options.longbench_e = longbench_e;
  options.skip_unsupported_tasks = skip_unsupported;
  options.read.skip_malformed_lines = on_bad_line == "skip";
  const std::filesystem::path dir(pred);
  std::vector<eval::TaskResult> results;
  try {
    results = eval::score_predictions_dir(dir, options);
  } catch (const eval::BadRecordError& e) {
    if (options.read.skip_malformed_lines) throw;
    throw eval::BadRecordError(fmt::format("{} [with --on-bad-line skip, bad lines are skipped with a warning]", e.what()));
  }
  if (results.empty()) {
    throw std::runtime_error(fmt::format("{}: no <task>.jsonl prediction files of LongBench tasks", pred));
  }
  const auto label = (dir.has_filename() ? dir.filename() : dir.parent_path().filename()).string();
  // A folder ripplekv wrote (a run's config.json, or the results.md ripplekv writes beside every
  // result.json) takes its own scores; any other folder (pred.py's, a published one) is left
  // untouched.
  const auto ours = [](const std::filesystem::path& d) {
    if (std::filesystem::exists(d / "results.md")) return true;
    try {
      (void)eval::read_run_config(d);
      return true;
    } catch (const std::exception&) {
      return false;
    }
  };
  std::filesystem::path target = out.empty() ? dir : std::filesystem::path(out);
  if (out.empty() && !ours(dir)) {
    target = dir.has_filename() ? dir.string() + "-scores" : dir.parent_path().string() + "-scores";
  }
  if (!ours(target)) {
    for (const char* name : {"result.json", "list_result.json"}) {
      if (std::filesystem::exists(target / name)) {
        throw UsageError(fmt::format("{}: exists and was not written by ripplekv; give --out a folder of your own",
                                     (target / name).string()));
      }
    }
  }
  const auto written = eval::write_score_files(target, eval::RunScores{label, results}, longbench_e);
  std::cout << eval::results_markdown({eval::RunScores{label, results}});
  for (const auto& p : written) std::cerr << "wrote " << p.string() << "\n";
  return 0;
}

}  // namespace ripplekv::cli
