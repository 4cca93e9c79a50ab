// Comma-separated option values ("a, b,c"): split on commas, spaces and tabs trimmed. A blank
// string is an empty list; an empty item in a list ("a,,b", "a,") is std::invalid_argument.
// Torch-free.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

std::vector<std::string> split_list(std::string_view csv);

}  // namespace ripplekv::eval
