// Errors of run folders that cannot be merged (shard files of two counts, disagreeing lines),
// collected while a command scores its other folders and thrown together at the end: one
// std::runtime_error, a line per folder, which main() turns into the exit code.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ripplekv::cli {

class DeferredErrors {
 public:
  void add(std::string message) { messages_.push_back(std::move(message)); }
  void throw_if_any() const {
    if (!messages_.empty()) throw std::runtime_error(fmt::format("{}", fmt::join(messages_, "\n")));
  }

 private:
  std::vector<std::string> messages_;
};

}  // namespace ripplekv::cli
