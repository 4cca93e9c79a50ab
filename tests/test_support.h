// Small helpers shared by tests: scratch folders, whole-file reads and writes, and running the
// built program with its output captured. Header-only; no Catch2 (include order with LibTorch).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace ripplekv::test {

namespace detail {

// The scratch folders this process made, removed when it exits (the function-local static's
// destructor runs after main returns), so a test run leaves nothing behind in the temp dir.
// RIPPLEKV_KEEP_TEST_DIRS set to anything non-empty keeps them, to look at after a failure.
class ScratchDirs {
 public:
  ScratchDirs() = default;
  ScratchDirs(const ScratchDirs&) = delete;
  ScratchDirs& operator=(const ScratchDirs&) = delete;

  void add(const std::filesystem::path& dir) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(dirs_.begin(), dirs_.end(), dir) == dirs_.end()) dirs_.push_back(dir);
  }

  // Never throws: an exception escaping a static's destructor at exit would abort the process
  // and turn a passing test into a failing one.
  ~ScratchDirs() {
    try {
      const char* keep = std::getenv("RIPPLEKV_KEEP_TEST_DIRS");
      if (keep && *keep) return;
      const std::lock_guard<std::mutex> lock(mutex_);
      for (const auto& dir : dirs_) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
      }
    } catch (...) {
    }
  }

 private:
  std::mutex mutex_;
  std::vector<std::filesystem::path> dirs_;
};

inline ScratchDirs& scratch_dirs() {
  static ScratchDirs dirs;
  return dirs;
}

}  // namespace detail

// A fresh, empty folder under the system temp dir, ripplekv_<prefix>_<name>_<pid>: unique to this
// process, so test executables run at once (ctest -j) never share one. Removed when the process
// exits unless RIPPLEKV_KEEP_TEST_DIRS is set and non-empty (a folder made again in the same
// process is emptied first, as before).
inline std::filesystem::path scratch_dir(const std::string& prefix, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ripplekv_" + prefix + "_" + name + "_" + std::to_string(::getpid()));
  // Registered before it is made: a folder half made (create_directories threw) still goes.
  detail::scratch_dirs().add(dir);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A field of /proc/self/status in KiB ("RssAnon", "RssFile", "VmHWM"); -1 where absent.
inline long proc_status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return -1;
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct CommandResult {
  int status = -1;
  std::string output;  // stdout and stderr
};

// Runs a shell command line, capturing stdout and stderr together.
inline CommandResult run_command(const std::string& command_line) {
  CommandResult r;
  std::FILE* p = ::popen((command_line + " 2>&1").c_str(), "r");
  if (!p) throw std::runtime_error("popen failed: " + command_line);
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace ripplekv::test
