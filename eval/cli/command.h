// Subcommands of the `ripplekv` program. Each command declares its options once (with their
// defaults, shown by --help), parses them through parse_options (command line over an
// optional --config file over defaults) and throws on bad input; main() turns exceptions
// into exit codes.
#pragma once

#include <boost/program_options.hpp>

#include <limits>
#include <string>
#include <vector>

namespace ripplekv::cli {

namespace po = boost::program_options;

struct Command {
  const char* name;
  const char* summary;
  int (*run)(const std::vector<std::string>& args);
};
const std::vector<Command>& commands();

// Thrown for bad command-line / config input: main() prints it with a usage hint (exit 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Parses args into vm. Returns false (after printing help) when --help was given.
// `--config FILE` reads the same options from an INI-style file (sections allowed as
// `[section]` prefixes); unknown keys are errors naming the key and the file.
bool parse_options(const std::string& command, const std::vector<std::string>& args, po::options_description& desc,
                   po::variables_map& vm, const po::positional_options_description* positional = nullptr);

// Options every model-running command shares.
struct RuntimeArgs {
  std::string model;
  std::string tokenizer;
  std::string dtype = "float32";
  std::string device = "cpu";
  int threads = 0;  // 0 = all cores
};
void add_runtime_options(po::options_description& desc, RuntimeArgs& args, bool model_required = true);

// KV-cache compression method options shared by generate, fidelity and longbench.
struct MethodArgs {
  std::string selector = "full";
  std::string allocator = "uniform";
  int64_t budget = 0;
  std::vector<std::string> method_opts;  // key=value
  double ratio = std::numeric_limits<double>::quiet_NaN();  // RippleKV ratio r
  bool ratio_given = false;                                  // --ratio given (even as nan)
};
void add_method_options(po::options_description& desc, MethodArgs& args);
// Builds the spec (ratio, when given, becomes the option ratio=r).
}  // namespace ripplekv::cli

#include "core/compress/compression.h"

namespace ripplekv::cli {
CompressionSpec to_spec(const MethodArgs& args);
// An output folder (--out of the benchmark commands): a file at that path is a UsageError naming
// the option, before any work (instead of a raw "cannot create directories" much later).
void require_out_folder(const std::string& path, const std::string& option = "--out");
// An output file: a folder or a device at that path is a UsageError naming the option.
void require_out_file(const std::string& path, const std::string& option = "--out");
// Sets LibTorch's thread count (LibTorch may start with fewer threads than cores).
void apply_threads(int threads);

}  // namespace ripplekv::cli
