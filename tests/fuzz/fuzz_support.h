// Shared by the fuzz targets: the input written to a per-process scratch file, for parsers that
// read a path. A parser may throw (std::exception: bad input, reported as such); anything else
// (a crash, a sanitizer report, a hang, an exception of another type) is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace ripplekv::fuzz {

// The per-process folder the inputs are written to; removed when the process exits normally
// (libFuzzer's -runs/-max_total_time end, and its crash reports, keep the input elsewhere).
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
            ("ripplekv_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(path_);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

inline std::string scratch_file(const char* name, const uint8_t* data, std::size_t size) {
  static const ScratchFolder folder;
  const std::string path = (folder.path() / name).string();
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                static_cast<std::streamsize>(size));
  return path;
}

}  // namespace ripplekv::fuzz
