// Shared by the fuzz targets: the input written to a per-process scratch file, for parsers that
// read a path. A parser may throw (std::exception: bad input, reported as such); anything else
// (a crash, a sanitizer report, a hang, an exception of another type) is a finding.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace ripplekv::fuzz {

inline std::string scratch_file(const char* name, const uint8_t* data, std::size_t size) {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    return std::string(tmp && *tmp ? tmp : "/tmp") + "/ripplekv_fuzz_" + std::to_string(::getpid());
  }();
  static const bool made = [] { return ::mkdir(dir.c_str(), 0700) == 0 || errno == EEXIST; }();
  (void)made;
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  return path;
}

}  // namespace ripplekv::fuzz
