// The notes of resuming a run folder with other arithmetic than the one that started it.
// Neither the thread count nor the CPU kernels is part of a run's configuration (a folder
// resumed with others goes on), but ATen's products for some shapes sum in another order on
// another thread count, and the CPU kernels round differently per CPU, so the samples of the
// two calls may differ in their last bits, as they may on another CPU with the same kernels.
// Each folder's config.json records them under "info" ("threads", "cpu_kernels", "cpu":
// eval/run_arithmetic.h); claim_run_dirs (run_config.h) prints these notes. Torch-free.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ripplekv::eval {

// The notes for resuming `dir` with `info` (holding run_arithmetic's keys): one per key whose
// value differs from the one in <dir>/config.json's "info", naming the setting that matches
// the first call; none without a config.json, or where the folder recorded no such key
// (folders made before it was recorded).
std::vector<std::string> arithmetic_changes(const std::filesystem::path& dir, const nlohmann::ordered_json& info);

}  // namespace ripplekv::eval
