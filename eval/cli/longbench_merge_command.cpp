// `ripplekv longbench-merge`: merges the shard files of a sharded `ripplekv longbench` run
// (shards/<task>.shard-i-of-n.jsonl) into <task>.jsonl in the data's order and scores the
// folder. The task list, data files and sample cut come from the folder's config.json.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "eval/cli/command.h"
#include "eval/longbench_run.h"
#include "eval/run_config.h"

namespace ripplekv::cli {

int run_longbench_merge(const std::vector<std::string>& args) {
  std::string out;
  po::options_description desc;
  desc.add_options()("out", po::value<std::string>(&out)->required(), "the --out folder of the sharded run");
  po::variables_map vm;
  if (!parse_options("longbench-merge", args, desc, vm)) return 0;

  const std::filesystem::path dir(out);
  const auto run = eval::read_run_config(dir);
  eval::SampleReadOptions read;
  read.skip_malformed_lines = run.value("on_bad_line", "stop") == "skip";
  const bool longbench_e = run.value("longbench_e", false);
  const long long max_samples = run.value("max_samples", 0LL);
  std::vector<eval::TaskSamples> data;
  for (const auto& name : run.at("tasks")) {
    const auto& task = eval::find_longbench_task(name.get<std::string>());
    const auto file = std::filesystem::path(run.at("data").at(std::string(task.name)).at("file").get<std::string>());
    auto samples = eval::load_task_samples(file.parent_path(), task, max_samples, longbench_e, read);
    if (samples.file != file) {
      throw std::runtime_error(fmt::format("{}: the run read {}, but {} would be read now; restore the data folder",
                                           (dir / "config.json").string(), file.string(), samples.file.string()));
    }
    const auto expected = run.at("data").at(std::string(task.name)).at("samples").get<std::size_t>();
    if (samples.samples.size() != expected) {
      throw std::runtime_error(fmt::format("{}: {} samples now, {} when the run started; the data file changed",
                                           file.string(), samples.samples.size(), expected));
    }
    data.push_back(std::move(samples));
  }
  eval::ScoreOptions score;
  score.longbench_e = longbench_e;
  const auto finished = eval::finish_run_dir(dir, data, score);
  if (!finished.complete) {
    std::string lines;
    for (const auto& l : finished.incomplete) lines += "\n  " + l;
    throw std::runtime_error(fmt::format("{}: not every task is complete yet:{}", out, lines));
  }
  const auto label = (dir.has_filename() ? dir.filename() : dir.parent_path().filename()).string();
  std::cout << eval::results_markdown({eval::RunScores{label, finished.results}});
  for (const auto& p : finished.written) std::cerr << "wrote " << p.string() << "\n";
  return 0;
}

}  // namespace ripplekv::cli
