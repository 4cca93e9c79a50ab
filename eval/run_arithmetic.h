// Which arithmetic computes a run now: the thread count and the CPU kernels, which each run
// folder's config.json records under "info" (threads, cpu_kernels). A resume with other
// values is noted, not refused (eval/arithmetic_changes.h). Torch-free header.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ripplekv::eval {

// The arithmetic of the CPU kernels for a model of this dtype ("float32", "bfloat16",
// "float16"): ripplekv's (models/ops/cpu_features.h) and ATen's capability, e.g.
// "aten+widened_bf16; ATen AVX2" (float16: "aten; ...", no kernel of ripplekv's takes it).
std::string cpu_kernels_label(const std::string& dtype);

// The CPU's model as the OS names it ("model name" in /proc/cpuinfo; empty where it names none).
// Two CPUs with one cpu_kernels label can still round differently (oneDNN and MKL choose their
// own kernels per CPU, e.g. AMX on a Xeon), so run folders record it beside the label.
std::string cpu_model_name();

// The "info" entries of a run on `device` in `dtype` now: {"threads": LibTorch's thread count,
// "cpu_kernels": cpu_kernels_label(dtype), "cpu": cpu_model_name()}, the last two on the CPU
// only ("cpu" where the OS names the model).
nlohmann::ordered_json run_arithmetic(const std::string& device, const std::string& dtype);

}  // namespace ripplekv::eval
