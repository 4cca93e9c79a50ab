// `ripplekv <command> [options]`: the only place exceptions become exit codes.
#include <fmt/format.h>

#include <exception>
#include <iostream>

#include "eval/cli/command.h"

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
  for (const auto& c : commands()) {
    if (name != c.name) continue;
    try {
      return c.run(std::vector<std::string>(argv + 2, argv + argc));
    } catch (const ripplekv::cli::UsageError& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    } catch (const std::invalid_argument& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "error: " << e.what() << "\n";
      return 1;
    }
  }
  std::cerr << "error: unknown command \"" << name << "\"\n";
  usage();
  return 2;
}
