// The options a compression policy reads, declared once in its registry row
// (core/compress/registry.cpp): name, type, default and help. Everything that talks about
// policy options derives from these rows: the values the policies get (PolicyOptions), the
// errors for unknown keys and bad values, `ripplekv methods` (and so the README's method
// tables and the command-line help), and the typing of `[method.X]` keys in sweep files.
// Torch-free.
#pragma once

#include <string>
#include <vector>

namespace ripplekv {

enum class OptionKind {
  kInt,     // a whole number
  kNumber,  // a real number
  kChoice,  // one of `choices`
  kText,    // free text: a path, a name
};

struct OptionSpec {
  std::string name;
  OptionKind kind = OptionKind::kText;
  std::string default_value;  // as text, the way a run records it; "" for none
  std::string help;
  std::vector<std::string> choices = {};  // kChoice only
};

// "window=32 kernel=7 pooling=max|avg|none" (a choice lists its default first; a text option
// without a default shows its name in capitals, e.g. file=FILE).
std::string option_defaults_text(const std::vector<OptionSpec>& options);

// "integer", "number", "one of max, avg, none", "text".
std::string option_kind_text(const OptionSpec& option);

}  // namespace ripplekv
