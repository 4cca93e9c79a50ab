// The commands `ripplekv sweep` runs in-process, one call per group of its runs: the runs of a
// group share every setting but their method, budget and folder (model, data, truncation,
// threads, ...), so one call prefills each sample (LongBench) or text (fidelity) once for all
// of them, through the evaluation engine or the shared-prefill fidelity loop. Each run still
// writes its own folder, exactly as a call of its own would (same config.json "run", same
// predictions and tables), and records its own command line. A single command line is a group
// of one: `ripplekv longbench ARGS` is run_longbench_group({ARGS}).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace ripplekv::cli {

// Parses every command line of a group with parse(args, Args&) (false: --help was shown, so
// nothing runs) and checks that shared(Args) is the same for all of them: the settings a
// group's runs must agree on (std::logic_error otherwise, a bug of the caller's grouping).
template <class Args, class Parse, class Shared>
bool parse_group(const char* command, const std::vector<std::vector<std::string>>& runs, std::vector<Args>& parsed,
                 Parse parse, Shared shared) {
  if (runs.empty()) throw std::logic_error(std::string(command) + ": an empty group of runs");
  parsed.assign(runs.size(), Args{});
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!parse(runs[i], parsed[i])) return false;
    if (i > 0 && shared(parsed[i]) != shared(parsed[0])) {
      throw std::logic_error(std::string(command) + ": the runs of one group differ in more than method and folder");
    }
  }
  return true;
}

int run_longbench_group(const std::vector<std::vector<std::string>>& runs);
int run_fidelity_group(const std::vector<std::vector<std::string>>& runs);

}  // namespace ripplekv::cli
