#include "eval/arithmetic_changes.h"

#include <fmt/format.h>

#include <fstream>

namespace ripplekv::eval {
namespace fs = std::filesystem;
namespace {

// What RIPPLEKV_CPU_ISA setting reproduces a folder's recorded kernels, where one can.
std::string kernels_hint(const std::string& kernels) {
  if (kernels.rfind("avx512;", 0) == 0) return "RIPPLEKV_CPU_ISA=avx512 on an AVX-512 CPU matches them";
  if (kernels.rfind("aten;", 0) == 0) return "RIPPLEKV_CPU_ISA=none matches them";
  return "a CPU with those kernels matches them";
}

}  // namespace

std::vector<std::string> arithmetic_changes(const fs::path& dir, const nlohmann::ordered_json& info) {
  std::vector<std::string> notes;
  std::ifstream in(dir / "config.json");
  if (!in) return notes;
  const auto config = nlohmann::json::parse(in, nullptr, false);
  if (config.is_discarded() || !config.contains("info") || !config["info"].is_object()) return notes;
  const auto& before = config["info"];
  const auto threads = before.find("threads");
  if (threads != before.end() && threads->is_number_integer() && info.contains("threads") &&
      threads->get<int>() != info.at("threads").get<int>()) {
    notes.push_back(fmt::format("{}: started on {} threads, resumed on {}: the samples of the two calls may differ in "
                                "their last bits (--threads {} matches them)",
                                dir.string(), threads->get<int>(), info.at("threads").get<int>(), threads->get<int>()));
  }
  const auto kernels = before.find("cpu_kernels");
  if (kernels != before.end() && kernels->is_string() && info.contains("cpu_kernels") &&
      kernels->get<std::string>() != info.at("cpu_kernels").get<std::string>()) {
    notes.push_back(fmt::format("{}: started with the CPU kernels {}, resumed with {}: the samples of the two calls "
                                "may differ in their last bits ({})",
                                dir.string(), kernels->get<std::string>(), info.at("cpu_kernels").get<std::string>(),
                                kernels_hint(kernels->get<std::string>())));
  }
  const auto cpu = before.find("cpu");
  if (cpu != before.end() && cpu->is_string() && info.contains("cpu") &&
      cpu->get<std::string>() != info.at("cpu").get<std::string>()) {
    notes.push_back(fmt::format("{}: started on the CPU {}, resumed on {}: the samples of the two calls may differ in "
                                "their last bits even with the same CPU kernels (oneDNN and MKL choose their own per "
                                "CPU; that CPU matches them)",
                                dir.string(), cpu->get<std::string>(), info.at("cpu").get<std::string>()));
  }
  return notes;
}

}  // namespace ripplekv::eval
