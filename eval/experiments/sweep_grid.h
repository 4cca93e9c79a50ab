// Sweep files: a grid of runs declared in one INI file, expanded into runs with a stable
// folder name each (`ripplekv sweep`, eval/cli/sweep_command.cpp).
//
//   [sweep]
//   kinds = fidelity, longbench        # which runs each grid point makes (eval/experiments/run_kinds.h)
//   out = out/sweeps/demo              # results folder (`ripplekv sweep --out` wins)
//
//   [common]                           # options for every kind that has them
//   model = ../shared/data/stories260K/stories260K.bin
//   method = snapkv | pyramidkv | ripple   # required; presets or selector:allocator
//   budget = 32 | 64                   # required unless every method is full
//   include = configs/models/x.ini     # the keys of an INI fragment, here (any section)
//
//   [longbench]                        # options for one kind only
//   tasks = hotpotqa,samsum | lcc      # two grid values: "hotpotqa,samsum" and "lcc"
//
//   [method.ripple]                    # policy options of one method (method-opt key=value)
//   ratio = 1 | 2 | 4
//   calibration = ../shared/data/longbench/raw/multi_news.jsonl
//
// Any value may list several values separated by '|': each such key is an axis of the grid.
// Runs are the cartesian product, in a fixed order: kinds as listed, then methods as listed,
// then the axes in file order (the first one varying slowest). An axis only reaches the runs
// it applies to: [method.X] axes only X's runs, [kind] axes only that kind's, and a full-cache
// method (selector full) takes no budget, so it is run once, not once per budget.
//
// Every run's resolved configuration (kind, command options but threads, selector, allocator,
// budget, policy options; values in canonical form) names its folder: <kind>/<readable>-<hash>, the
// readable part from the method, budget and the run's other axis values, the hash FNV-1a of
// the configuration. Two grid points that resolve to the same configuration are an error
// naming both. Torch-free.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/experiments/ini_file.h"
#include "eval/run_state.h"

namespace ripplekv::experiments {

// A method name from a sweep file, resolved (by the method preset table in the program; tests
// pass their own). Throws std::invalid_argument for an unknown name.
struct ResolvedMethod {
  std::string selector;
  std::string allocator;
  std::map<std::string, std::string> options;  // from "name@key=value,..."
};
using MethodResolver = std::function<ResolvedMethod(const std::string& name)>;

struct SweepSpec {
  std::string path;
  std::vector<std::string> kinds;
  std::string out;  // [sweep] out, may be empty
  std::vector<IniEntry> entries;  // every entry outside [sweep], includes expanded in place
};

// Reads and checks the file's structure: sections ([sweep], [common], one per kind,
// [method.NAME]), keys (each kind's options, none the sweep sets itself, none given twice in a
// section), value types, and `|` lists. Errors are std::invalid_argument "file:line: ..." with
// the fix. Includes are read relative to the working directory, like every path in the file.
// `overrides` ("[section.]key=value", section "common" when none; the section is what comes
// before the last '.') replace the file's value of that key, or add it: the command line wins.
SweepSpec read_sweep_file(const std::string& path, const std::vector<std::string>& overrides = {});
SweepSpec parse_sweep_text(const std::string& text, const std::string& path,
                           const std::vector<std::string>& overrides = {});

struct SweepRun {
  std::string kind;
  std::string method;  // as written, e.g. "ripple"
  bool full = false;   // full cache: no budget
  int64_t budget = 0;  // 0 when full
  ResolvedMethod resolved;  // selector, allocator, policy options (preset's + [method.X])
  std::map<std::string, std::string> options;  // command options, as written
  std::vector<std::pair<std::string, std::string>> point;  // this run's axis values, file order
  nlohmann::ordered_json config;  // the canonical resolved configuration
  std::string hash;               // 8 hex digits of FNV-1a 64 of config
  std::string name;               // <readable>-<hash>
  std::size_t index = 0;          // position in the expanded grid
  std::string folder() const { return kind + "/" + name; }
  std::string describe() const;  // "fidelity method=ripple budget=64 ratio=2"
};

// Expands the grid. Throws std::invalid_argument for an empty grid (no method), an unknown
// method, a method section for a method the grid does not list, a policy option of the wrong
// type, and two grid points with the same configuration (naming both).
std::vector<SweepRun> expand_sweep(const SweepSpec& spec, const MethodResolver& resolve);

// The runs of shard i/n: those whose grid index k has k % n == i.
std::vector<SweepRun> shard_runs(const std::vector<SweepRun>& runs, const eval::Shard& shard);

// The command-line arguments of a run's `ripplekv <kind>` call writing into `run_dir`, with
// `method` in place of run.resolved (the sweep swaps calibration= for the profile it made).
std::vector<std::string> run_arguments(const SweepRun& run, const ResolvedMethod& method, const std::string& run_dir);

// sweep_run.json: what a run folder holds (the sweep file, kind, method, budget, axis values,
// configuration, hash and command line).
nlohmann::ordered_json sweep_run_record(const SweepSpec& spec, const SweepRun& run,
                                        const std::vector<std::string>& arguments);

}  // namespace ripplekv::experiments
