#include "eval/run_arithmetic.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <fmt/format.h>

#include <fstream>

#include "models/ops/cpu_features.h"

namespace ripplekv::eval {

std::string cpu_kernels_label(const std::string& dtype) {
  // ripplekv's CPU kernels take float32 and bfloat16 tensors; a float16 model runs ATen's only.
  const char* ours = dtype == "float16" ? "aten" : ops::cpu_kernel_arithmetic(dtype == "bfloat16");
  return fmt::format("{}; ATen {}", ours, at::get_cpu_capability());
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const auto begin = line.find_first_not_of(" \t", colon + 1);
    return begin == std::string::npos ? std::string() : line.substr(begin);
  }
  return {};
}

nlohmann::ordered_json run_arithmetic(const std::string& device, const std::string& dtype) {
  nlohmann::ordered_json j;
  j["threads"] = at::get_num_threads();  // the summation order of some products follows it
  if (device == "cpu") {
    j["cpu_kernels"] = cpu_kernels_label(dtype);  // the rounding of the kernels follows it
    if (auto model = cpu_model_name(); !model.empty()) j["cpu"] = model;  // and, within a label, the CPU
  }
  return j;
}

}  // namespace ripplekv::eval
