// The kinds of run a sweep can make, one per `ripplekv` command it drives in-process:
//
//   longbench   LongBench predictions + scores  (`ripplekv longbench`, one method x budget)
//   fidelity    KL / top-1 against the full cache (`ripplekv fidelity`, one method x budget)
//
// For each kind: the command options a sweep file may set, with their types (so that a wrong
// value is an error naming file:line before anything runs), the options the sweep sets itself,
// and what makes a run folder complete. The option names are the commands' own (`ripplekv
// <kind> --help`); tests/eval/cli/test_sweep_cli.cpp checks that the lists match the help texts.
// Torch-free.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ripplekv::experiments {

enum class OptionType { kString, kInt, kNumber, kBool };

struct KindOption {
  const char* name;
  OptionType type;
  bool decides_results = true;  // false: left out of the run's identity (threads), so changing it reruns nothing
};

struct RunStatus {
  bool complete = false;
  std::string why;  // when incomplete: what is missing, e.g. "hotpotqa.jsonl: 1 of 2 samples"
};

struct RunKind {
  const char* name;
  std::vector<KindOption> options;       // settable from a sweep file
  std::vector<const char*> sweep_owned;  // set by the sweep (method, budget, out, ...): an error in a file
  const char* sweep_owned_hint;          // how to say the same thing in a sweep file
  RunStatus (*status)(const std::filesystem::path& run_dir);
};

const std::vector<RunKind>& run_kinds();
// Throws std::invalid_argument listing the kinds.
const RunKind& find_run_kind(const std::string& name);
// nullptr when the kind does not take the option.
const KindOption* find_kind_option(const RunKind& kind, const std::string& option);
bool is_sweep_owned(const RunKind& kind, const std::string& option);

const char* option_type_name(OptionType type);
// Empty when `value` is a valid `type`, else why not ("\"abc\" is not an integer").
std::string check_option_value(OptionType type, const std::string& value);
// The value written the one way two equal values compare equal: integers without leading
// zeros or '+', numbers in the shortest form that reads back the same, booleans true/false.
std::string canonical_option_value(OptionType type, const std::string& value);
bool bool_option_value(const std::string& value);  // true/false, yes/no, on/off, 1/0

// A `ripplekv longbench --out DIR` folder is complete when its config.json, every task's
// <task>.jsonl with all the samples config.json lists, and result.json with every task are there.
RunStatus longbench_run_status(const std::filesystem::path& run_dir);
// A `ripplekv fidelity --out DIR` folder is complete when config.json and a fidelity.csv with
// its header and at least one whole row are there (fidelity.csv is written last).
RunStatus fidelity_run_status(const std::filesystem::path& run_dir);

}  // namespace ripplekv::experiments
