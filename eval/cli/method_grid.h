// The methods of a run that writes one folder per variant (`longbench`, `ruler`, `needle`):
// either one method from --selector/--allocator/--budget/--method-opt/--ratio, written to
// --out itself, or a grid from --methods x --budgets, one folder per variant under --out
// ("full", "snapkv_b128", "snapkv+ripple@ratio=4_b128"). Each sample is then prefilled once
// for every variant by the evaluation engine (eval/engine/engine.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/cli/command.h"
#include "core/compress/compression.h"
#include "eval/engine/engine.h"
#include "eval/run_lock.h"
#include "eval/run_state.h"
#include "models/loaders/opened_model.h"
#include "models/tokenizer/tokenizer.h"

namespace ripplekv::cli {

struct PlannedVariant {
  std::string text;  // the --methods entry ("" for the single-method options)
  CompressionSpec spec;
  std::unique_ptr<CompressionMethod> method;  // made by the caller (ripple profiles need the model)
  std::filesystem::path dir;
  std::vector<std::string> command_args;  // the command line this variant came from (recorded in config.json)
};

// "64,128,256" -> integers in [lo, hi], in the given order. An item that is not one throws
// UsageError `--option: "item" is not <what> (e.g. <example>)`; a value listed twice too.
// An empty list is returned as is (the caller decides whether that is allowed).
std::vector<int64_t> parse_int_list(const std::string& csv, const std::string& option, int64_t lo, int64_t hi,
                                    const std::string& what, const std::string& example);

// Adds --methods, --budgets and --decode to a command that also has add_method_options.
void add_method_grid_options(po::options_description& desc, std::string& methods, std::string& budgets,
                             std::string& decode);
// --decode: "batched" (true) or "sequential" (false); anything else throws UsageError.
bool parse_decode_mode(const std::string& decode);

// Throws UsageError for a grid mixed with single-method options, a method listed twice, a
// budget that is not a positive integer, a grid method without budgets, --budgets without
// --methods, or two variants sharing a folder.
std::vector<PlannedVariant> plan_variants(const MethodArgs& single, const std::string& methods,
                                          const std::string& budgets, const std::filesystem::path& out);
// Throws UsageError when two variants of `plan` write to one folder.
void check_distinct_folders(const std::vector<PlannedVariant>& plan);

// Makes each variant's method with CompressionMethod::create(spec, model): a model-bound
// allocator completes its spec from the model (ripple without profile= is profiled now and the
// profile cached), and the variant's spec becomes the one the method used.
void create_methods(std::vector<PlannedVariant>& plan, const OpenedModel& model);

struct ClaimedVariants {
  std::vector<std::unique_ptr<eval::RunLock>> locks;  // one writer per folder and shard, held for the run
  std::vector<eval::EngineVariant> variants;
};
// Locks each variant folder (per shard) and writes or checks its config.json: "run" is
// `run_common` plus the method; "info" the method's description and notes, `info_extra`, and
// the variant's command line ("ripplekv <command> <command_args>").
ClaimedVariants claim_variant_dirs(const std::vector<PlannedVariant>& plan, const eval::Shard& shard,
                                   const nlohmann::ordered_json& run_common, const nlohmann::ordered_json& info_extra,
                                   const std::string& command);

}  // namespace ripplekv::cli
