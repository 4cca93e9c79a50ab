// Shared by the fuzz targets: the input written to a per-process scratch file, for parsers that
// read a path. A parser may throw (std::exception: bad input, reported as such); anything else
// (a crash, a sanitizer report, a hang, an exception of another type) is a finding.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace ripplekv::fuzz {

// The per-process folder the inputs are written to, removed when the process exits normally
// (libFuzzer's -runs or -max_total_time reached). A crash, timeout or out-of-memory kill leaves
// it behind; libFuzzer saves that input under -artifact_prefix. A folder or file that cannot be
// written aborts the process, naming it: some targets catch std::exception as bad input, and
// would otherwise fuzz nothing while reporting no finding.
class ScratchFolder {
 public:
  ScratchFolder() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
            ("ripplekv_fuzz_" + std::to_string(::getpid()));
    std::error_code ec;
    std::filesystem::create_directories(path_, ec);
    if (ec) fail("cannot create", path_, ec.message());
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

  [[noreturn]] static void fail(const char* what, const std::filesystem::path& path, const std::string& why) {
    std::fprintf(stderr, "fuzz_support.h: %s %s: %s (set TMPDIR to a writable folder)\n", what, path.c_str(),
                 why.c_str());
    std::abort();
  }

 private:
  std::filesystem::path path_;
};

inline std::string scratch_file(const char* name, const uint8_t* data, std::size_t size) {
  static const ScratchFolder folder;
  const auto path = folder.path() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  out.close();
  if (!out) ScratchFolder::fail("cannot write", path, "disk full or no permission");
  return path.string();
}

}  // namespace ripplekv::fuzz
