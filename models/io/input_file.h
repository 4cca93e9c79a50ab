// Checks before reading an input file, so that a folder or a missing file given where a file
// belongs is an error naming the path and what it should be, instead of the standard library's
// "basic_filebuf::underflow ... Is a directory" or an empty read. Torch-free, header-only.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace ripplekv {

// Throws std::invalid_argument "PATH: cannot open: <problem>; expected WHAT" unless `path` is a regular file
// (or a link to one) that exists.
inline void require_input_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw std::invalid_argument(path + ": cannot open: no such file; expected " + what);
  }
  if (std::filesystem::is_directory(status)) {
    throw std::invalid_argument(path + ": cannot open: is a folder, not a file; expected " + what);
  }
  if (!std::filesystem::is_regular_file(status)) {
    throw std::invalid_argument(path + ": cannot open: not a regular file; expected " + what);
  }
}

}  // namespace ripplekv
