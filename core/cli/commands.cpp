// The table of subcommands: one line per command.
#include "core/cli/command.h"

namespace ripplekv::cli {

int run_generate(const std::vector<std::string>& args);

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {
      {"generate", "greedy generation from a prompt (prints text and tokens/s)", run_generate},
  };
  return table;
}

}  // namespace ripplekv::cli
