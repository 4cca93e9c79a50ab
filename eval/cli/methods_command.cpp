// `ripplekv methods`: every token selector and layer budget allocator with its options (type,
// default, help) and the method presets, all from the policy catalog; `--markdown` prints the
// README's method tables (a test keeps the README equal to it).
#include <fmt/format.h>

#include <iostream>

#include "core/compress/method_presets.h"
#include "core/compress/policy_catalog.h"
#include "eval/cli/command.h"

namespace ripplekv::cli {

int run_methods(const std::vector<std::string>& args) {
  bool markdown = false;
  po::options_description desc;
  desc.add_options()("markdown", po::bool_switch(&markdown), "print the README's method tables (Markdown)");
  po::variables_map vm;
  if (!parse_options("methods", args, desc, vm)) return 0;
  if (markdown) {
    std::cout << policy_tables_markdown();
    return 0;
  }
  std::cout << "A method is a token selector x a layer budget allocator (--selector, --allocator; options with "
               "--method-opt key=value).\n\n"
            << policy_options_text() << "\npresets (--methods NAME[@key=value,...], or selector:allocator):\n";
  for (const auto& p : method_presets()) {
    std::cout << fmt::format("    {:<13} {} x {}: {}\n", p.name, p.selector, p.allocator, p.summary);
  }
  return 0;
}

}  // namespace ripplekv::cli
