// The methods of a run that writes one folder per variant (`longbench`, `ruler`, `needle`):
// either one method from --selector/--allocator/--budget/--method-opt/--ratio, written to
// --out itself, or a grid from --methods x --budgets, one folder per variant under --out
// ("full", "snapkv_b128", "snapkv+ripple@ratio=4_b128"). Each sample is then prefilled once
// for every variant by the evaluation engine (eval/engine/engine.h).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/cli/command.h"
#include "core/compress/compression.h"

namespace ripplekv::cli {

struct PlannedVariant {
  std::string text;  // the --methods entry ("" for the single-method options)
  CompressionSpec spec;
  std::unique_ptr<CompressionMethod> method;  // made by the caller (ripple profiles need the model)
  std::filesystem::path dir;
};

// Adds --methods, --budgets to a command that also has add_method_options.
void add_method_grid_options(po::options_description& desc, std::string& methods, std::string& budgets);

// Throws UsageError for a grid mixed with single-method options, a method listed twice, a
// budget that is not a positive integer, a grid method without budgets, --budgets without
// --methods, or two variants sharing a folder.
std::vector<PlannedVariant> plan_variants(const MethodArgs& single, const std::string& methods,
                                          const std::string& budgets, const std::filesystem::path& out);

}  // namespace ripplekv::cli
