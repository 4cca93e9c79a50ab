#include "core/compress/option_schema.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace ripplekv {

std::string option_defaults_text(const std::vector<OptionSpec>& options) {
  std::string out;
  for (const auto& o : options) {
    if (!out.empty()) out += ' ';
    std::string value = o.default_value;
    if (o.kind == OptionKind::kChoice) {
      for (const auto& c : o.choices) {
        if (c != o.default_value) value += "|" + c;
      }
    } else if (value.empty()) {
      value = "PATH";
    }
    out += o.name + "=" + value;
  }
  return out;
}

std::string option_kind_text(const OptionSpec& option) {
  switch (option.kind) {
    case OptionKind::kInt: return "integer";
    case OptionKind::kNumber: return "number";
    case OptionKind::kChoice: return fmt::format("one of {}", fmt::join(option.choices, ", "));
    case OptionKind::kText: return "text";
  }
  return "text";
}

}  // namespace ripplekv
