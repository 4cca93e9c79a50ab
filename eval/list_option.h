// Comma-separated option values ("a, b,c"): split on commas, spaces and tabs trimmed, empty
// items dropped. Torch-free.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ripplekv::eval {

std::vector<std::string> split_list(std::string_view csv);

}  // namespace ripplekv::eval
