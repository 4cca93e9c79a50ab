// The resolved configuration of a LongBench run, saved as <out>/config.json:
//   {"run": {...}, "info": {...}}
// "run" holds everything that decides the predictions (model, tokenizer, dtype, device, data
// files and sample counts, tasks, prompt settings, compression method); "info" holds what
// does not (descriptions, sharding, the ripplekv command line). A folder belongs to one run:
// opening it with a different "run" is an error naming the differing keys, so predictions of
// different configurations are never mixed. Torch-free.
//
// A policy option a run leaves out takes its policy's default, and a default may change
// between ripplekv versions. So "info" also records every option in force under
// kMethodOptionsKey (CompressionMethod::options_in_force), and when both the folder's
// config.json and the new run record them, those values (on the keys both record; given
// options on the others) are compared in place of "run.method.options": a folder written
// under an old default is not resumed under a new one, and an option given explicitly at its
// default value matches a folder that left it out. Folders written before this key existed
// compare the given options only.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/run_state.h"

namespace ripplekv::eval {

// The "info" key holding every policy option in force (an object of strings).
inline constexpr char kMethodOptionsKey[] = "method_options";

enum class RunDirState {
  kCreated,   // config.json written now
  kMatches,   // config.json was there with the same "run"
  kExtended,  // config.json was there with fewer samples of the same data: rewritten with the new counts
};

// Creates `dir` if needed and writes config.json, or checks the one there. Throws
// std::runtime_error listing the differing keys (or naming a damaged config.json). `marker` is
// the key that says what kind of folder it is (`ripplekv table` collects LongBench-format runs
// by the default one; a fidelity variant's record folder has its own).
//
// A LongBench run whose larger --max-samples takes more of files the folder's cap had cut
// ("max_samples" and "data.<task>.samples" differ, every moved count was the old cap and grows)
// extends the folder: the first N samples of a file are the first N of any larger cut, so the
// finished predictions stay and the rest are added; config.json is rewritten with the new
// counts (kExtended; the caller removes the old scores). A cap that takes no more of any file
// matches; a smaller cap, or a count that moved without the cap explaining it (the file
// changed), is refused with a hint.
RunDirState claim_run_dir(const std::filesystem::path& dir, const nlohmann::ordered_json& run,
                          const nlohmann::ordered_json& info, const char* marker = "ripplekv_longbench_config");

// What claim_run_dir would return (kCreated: no config.json yet), throwing as it would, and
// writing nothing: a run of many folders checks them all before it changes any.
RunDirState check_run_dir(const std::filesystem::path& dir, const nlohmann::ordered_json& run,
                          const nlohmann::ordered_json& info, const char* marker = "ripplekv_longbench_config");

// One folder of a run that writes many (a method grid's variants, a fidelity run's record
// folders), with the "run" and "info" claim_run_dir takes.
struct RunDirClaim {
  std::filesystem::path dir;
  nlohmann::ordered_json run;
  nlohmann::ordered_json info;
};

// Called right after each folder is claimed, with its state (a LongBench grid removes the
// scores of an extended folder there, before the next folder is claimed).
using ClaimedRunDir = std::function<void(const RunDirClaim&, RunDirState)>;

// Claims every folder in order as claim_run_dir does, after checking them all: a refusal the
// checks find throws before any folder is created, extended or noted. A folder whose
// config.json records other arithmetic than its `info` (thread count, CPU kernels) goes on,
// with arithmetic_changes' notes (eval/arithmetic_changes.h) passed to `warn` (empty: stderr)
// just before it is claimed.
void claim_run_dirs(const std::vector<RunDirClaim>& claims, const ClaimedRunDir& claimed = {},
                    const char* marker = "ripplekv_longbench_config", const WarningSink& warn = {});

// The "run" object of <dir>/config.json. Throws std::runtime_error when it is missing.
nlohmann::json read_run_config(const std::filesystem::path& dir);

// Whether another run has extended <dir> to more samples since `run` claimed it: its
// config.json now records more samples of one of `run`'s data files, or RULER's larger
// "samples" (false without a config.json, or for a "run" with neither). The run that claimed fewer
// keeps its predictions and writes no scores of its smaller set there.
bool extended_by_another_run(const std::filesystem::path& dir, const nlohmann::json& run);

// Keys (dotted paths) whose values differ between two "run" objects, sorted.
std::vector<std::string> differing_keys(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace ripplekv::eval
