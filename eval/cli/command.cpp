#include "eval/cli/command.h"

#include <cmath>
#include <filesystem>

#include <ATen/Parallel.h>
#include "core/compress/policy_options.h"
#include "core/compress/policy_catalog.h"
#include "core/compress/registry.h"
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <iostream>
#include <thread>

namespace ripplekv::cli {

namespace {

// Reads an INI config file for one command. Keys before any section apply to every command
// that has them; keys in a `[<command>]` section apply to that command only (so one file can
// configure several commands); sections named after other commands are skipped. Anything else
// is an error naming the key and the file.
po::parsed_options config_file_options(std::istream& in, const po::options_description& all,
                                       const std::string& command, const std::string& path) {
  auto parsed = po::parse_config_file(in, all, /*allow_unregistered=*/true);
  std::vector<po::option> kept;
  for (auto opt : parsed.options) {
    const auto dot = opt.string_key.find('.');
    if (dot != std::string::npos) {
      const auto section = opt.string_key.substr(0, dot);
      bool other_command = false;
      for (const auto& c : commands()) other_command = other_command || (section != command && section == c.name);
      if (other_command) continue;
      if (section == command) opt.string_key = opt.string_key.substr(dot + 1);
    }
    if (!all.find_nothrow(opt.string_key, /*approx=*/false)) {
      throw UsageError(fmt::format("{}: unknown option \"{}\" for `ripplekv {}` (keys are the long option names of "
                                   "`ripplekv {} --help`; [section] names must be command names)",
                                   path, opt.string_key, command, command));
    }
    opt.unregistered = false;
    kept.push_back(std::move(opt));
  }
  parsed.options = std::move(kept);
  return parsed;
}

}  // namespace

void require_out_folder(const std::string& path, const std::string& option) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_directory(st)) {
    throw UsageError(fmt::format("{} {}: is a file, not a folder; give a folder for the results", option, path));
  }
  const auto parent = std::filesystem::absolute(path).parent_path();
  for (auto p = parent; !p.empty(); p = p.parent_path()) {
    const auto ps = std::filesystem::status(p, ec);
    if (!ec && std::filesystem::exists(ps)) {
      if (!std::filesystem::is_directory(ps)) {
        throw UsageError(fmt::format("{} {}: {} is a file, so the folder cannot be made there", option, path, p.string()));
      }
      break;
    }
    if (p == p.root_path()) break;
  }
}

void require_out_file(const std::string& path, const std::string& option) {
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(st)) {
    throw UsageError(fmt::format("{} {}: is a folder; give a file path", option, path));
  }
  if (!ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
    throw UsageError(fmt::format("{} {}: is not a regular file (a device or pipe); give a file path", option, path));
  }
}

bool parse_options(const std::string& command, const std::vector<std::string>& args, po::options_description& desc,
                   po::variables_map& vm, const po::positional_options_description* positional) {
  po::options_description all(fmt::format("ripplekv {} options", command));
  all.add_options()("help,h", "show this help and exit")(
      "config", po::value<std::string>(), "read options from an INI-style config file (command line wins)");
  all.add(desc);
  try {
    po::command_line_parser parser(args);
    parser.options(all);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << all << "\n";
      return false;
    }
    if (vm.count("config")) {
      const auto path = vm["config"].as<std::string>();
      if (std::filesystem::is_directory(path)) {
        throw UsageError(fmt::format("--config {}: is a folder; give an INI file (e.g. configs/models/X.ini)", path));
      }
      std::ifstream in(path);
      if (!in) throw UsageError(fmt::format("--config {}: cannot open the file", path));
      try {
        po::store(config_file_options(in, all, command, path), vm);
      } catch (const po::error& e) {
        throw UsageError(fmt::format("{}: {} (keys are the long option names of `ripplekv {} --help`)", path,
                                     e.what(), command));
      }
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(fmt::format("ripplekv {}: {}", command, e.what()));
  }
  return true;
}

void add_runtime_options(po::options_description& desc, RuntimeArgs& a, bool model_required) {
  auto model = po::value<std::string>(&a.model);
  if (model_required) model->required();
  desc.add_options()("model", model, "HF checkpoint directory (config.json + safetensors) or llama2.c .bin file")(
      "tokenizer", po::value<std::string>(&a.tokenizer)->default_value(""),
      "sentencepiece .model or HF tokenizer.json (default: found beside the model)")(
      "dtype", po::value<std::string>(&a.dtype)->default_value(a.dtype), "float32 | bfloat16 | float16")(
      "device", po::value<std::string>(&a.device)->default_value(a.device), "cpu | cuda | cuda:N")(
      "threads", po::value<int>(&a.threads)->default_value(0), "CPU threads for LibTorch (0 = all cores)");
}

void add_method_options(po::options_description& desc, MethodArgs& a) {
  static const std::string selectors = "token selector: " + fmt::format("{}", fmt::join(selector_names(), ", "));
  static const std::string allocators =
      "layer budget allocator: " + fmt::format("{}", fmt::join(allocator_names(), ", "));
  desc.add_options()("selector", po::value<std::string>(&a.selector)->default_value(a.selector), selectors.c_str())(
      "allocator", po::value<std::string>(&a.allocator)->default_value(a.allocator), allocators.c_str())(
      "budget", po::value<int64_t>(&a.budget)->default_value(0),
      "average cached prompt tokens per layer, observation window included (total = layers x budget)")(
      "method-opt", po::value<std::vector<std::string>>(&a.method_opts)->composing(),
      "policy option key=value, repeatable (e.g. window=32 kernel=7); `ripplekv methods` lists every policy's "
      "options with their defaults")(
      "ratio", po::value<double>(&a.ratio)->notifier([&a](double) { a.ratio_given = true; }), "RippleKV ratio r >= 1 (ripple allocator; default: its ratio= option, 2)");
}

CompressionSpec to_spec(const MethodArgs& a) {
  CompressionSpec spec;
  spec.selector = a.selector;
  spec.allocator = a.allocator;
  spec.budget = a.budget;
  for (const auto& kv : a.method_opts) {
    auto [k, v] = parse_key_value(kv);
    if (!spec.options.emplace(k, v).second) throw UsageError(fmt::format("--method-opt {} given twice", k));
  }
  if (!find_allocator_info(spec.allocator)) {
    throw UsageError(fmt::format("--allocator {}: unknown; valid allocators: {}", spec.allocator,
                                 fmt::join(allocator_names(), ", ")));
  }
  if (a.ratio_given) {
    if (!(a.ratio >= 1) || !std::isfinite(a.ratio)) throw UsageError(fmt::format("--ratio {}: the RippleKV ratio must be >= 1 (1 = uniform)", a.ratio));
    if (spec.options.count("ratio")) {
      throw UsageError(fmt::format("--ratio {} and --method-opt ratio={} both given; give one", a.ratio,
                                   spec.options["ratio"]));
    }
    if (!allocator_declares(spec.allocator, "ratio")) {
      throw UsageError(fmt::format("--ratio is an option of the ripple allocator, not of --allocator {}", spec.allocator));
    }
    spec.options["ratio"] = fmt::format("{}", a.ratio);
  }
  if (spec.selector == "full" && spec.budget != 0) {
    throw UsageError(fmt::format("--selector full keeps the whole cache, so --budget {} would be ignored; drop "
                                 "--budget or choose a compressing selector", spec.budget));
  }
  return spec;
}

void apply_threads(int threads) {
  if (threads < 0) throw UsageError("--threads must be >= 0");
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (threads > 4 * cores) {
    throw UsageError(fmt::format("--threads {}: more than 4x this machine's {} cores only slows LibTorch down; use 0 "
                                 "(all cores) or at most {}", threads, cores, 4 * cores));
  }
  const int n = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
}

}  // namespace ripplekv::cli
