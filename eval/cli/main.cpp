// `ripplekv <command> [options]`: the only place exceptions become exit codes.
#include <fmt/format.h>

#include <exception>
#include <iostream>

#include <c10/util/Exception.h>
#include <nlohmann/json.hpp>

#include "eval/cli/command.h"
#include "eval/cli/malloc_policy.h"
#include "models/io/json_error.h"
#include "models/ops/cpu_features.h"

namespace {
// LibTorch's errors carry a C++ stack trace after the message; the user needs the message.
std::string torch_error_text(const c10::Error& e) {
  std::string text = e.what_without_backtrace();
  if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  if (text.find("can't allocate memory") != std::string::npos || text.find("out of memory") != std::string::npos) {
    text += " -- out of memory: lower the sizes of this run (e.g. --draws, --batch, --max-tokens, lengths)";
  }
  return text;
}
}  // namespace

int main(int argc, char** argv) {
  using ripplekv::cli::commands;
  auto usage = [] {
    std::cout << "usage: ripplekv <command> [options]   (ripplekv <command> --help for its options)\n\ncommands:\n";
    for (const auto& c : commands()) std::cout << fmt::format("  {:<16} {}\n", c.name, c.summary);
  };
  if (argc < 2) {
    usage();
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    usage();
    return 0;
  }
  ripplekv::cli::keep_freed_memory();
  for (const auto& c : commands()) {
    if (name != c.name) continue;
    try {
      (void)ripplekv::ops::cpu_isa_cap();  // a bad RIPPLEKV_CPU_ISA is an error now, not mid-run
      return c.run(std::vector<std::string>(argv + 2, argv + argc));
    } catch (const ripplekv::cli::UsageError& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    } catch (const std::invalid_argument& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    } catch (const c10::Error& e) {
      std::cerr << "error: " << torch_error_text(e) << "\n";
      return 1;
    } catch (const nlohmann::json::exception& e) {
      // A reader that did not name its file (a bug to report): at least no library prefix.
      std::cerr << "error: JSON input: " << ripplekv::json_error_text(e) << "\n";
      return 1;
    } catch (const std::bad_alloc&) {
      std::cerr << "error: out of memory: lower the sizes of this run (samples, lengths, --batch)\n";
      return 1;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "error: unknown command \"" << name << "\"\n";
  usage();
  return 2;
}
