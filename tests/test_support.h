// Small helpers shared by tests: scratch folders, whole-file reads and writes, and running the
// built program with its output captured. Header-only; no Catch2 (include order with LibTorch).
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ripplekv::test {

// A fresh, empty folder under the system temp dir, unique to this process.
inline std::filesystem::path scratch_dir(const std::string& prefix, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ripplekv_" + prefix + "_" + name + "_" + std::to_string(::getpid()));
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
