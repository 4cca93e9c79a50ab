// Which arithmetic computed a run folder, and the note when a later call resumes it with
// another. Neither the thread count nor the CPU kernels is part of a run's configuration (a
// folder resumed with others goes on), but ATen's products for some shapes sum in another
// order on another thread count, and the CPU kernels round differently per CPU, so the
// samples of the two calls may differ in their last bits. Each folder's config.json records
// both under "info" (threads, cpu_kernels); a resume with other values prints a note naming
// the setting that matches the first call. Torch-free header.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/run_state.h"

namespace ripplekv::eval {

// The arithmetic of the CPU kernels for a model of this dtype ("float32", "bfloat16",
// "float16"): ripplekv's (models/ops/cpu_features.h) and ATen's capability, e.g.
// "aten+widened_bf16; ATen AVX2" (float16: "aten; ...", no kernel of ripplekv's takes it).
std::string cpu_kernels_label(const std::string& dtype);

// The "info" entries of a run on `device` in `dtype` now: {"threads": LibTorch's thread count,
// "cpu_kernels": cpu_kernels_label(dtype)}, the latter on the CPU only.
nlohmann::ordered_json run_arithmetic(const std::string& device, const std::string& dtype);

// The notes for resuming `dir` with `info` (holding run_arithmetic's keys): one per key whose
// value differs from the one in <dir>/config.json's "info"; none without a config.json, or
// where the folder recorded no such key (folders made before it was recorded).
std::vector<std::string> arithmetic_changes(const std::filesystem::path& dir, const nlohmann::ordered_json& info);

// Passes each of arithmetic_changes' notes to `warn` (empty: stderr).
void warn_on_other_arithmetic(const std::filesystem::path& dir, const nlohmann::ordered_json& info,
                              const WarningSink& warn = {});

}  // namespace ripplekv::eval
