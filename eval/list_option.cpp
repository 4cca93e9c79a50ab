#include "eval/list_option.h"

#include <stdexcept>
#include <string>

namespace ripplekv::eval {

std::vector<std::string> split_list(std::string_view csv) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= csv.size()) {
    const auto comma = csv.find(',', start);
    const auto item = csv.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    const auto b = item.find_first_not_of(" \t");
    if (b != std::string_view::npos) {
      out.emplace_back(item.substr(b, item.find_last_not_of(" \t") - b + 1));
    } else if (csv.find_first_not_of(" \t") != std::string_view::npos) {
      throw std::invalid_argument("\"" + std::string(csv) + "\": an empty item in the list (items are separated by "
                                  "single commas)");
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace ripplekv::eval
