// Paths the eval tests read: the shared LongBench data (read-only) and the
// checked-in fixtures.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

namespace ripplekv::eval::test {

inline std::filesystem::path longbench_data_dir() {
  return std::filesystem::path(RIPPLEKV_SHARED_DATA) / "longbench";
}

inline std::filesystem::path reference_predictions_dir() {
  return longbench_data_dir() / "reference_predictions" / "mistral-7b-instruct-v0.2-fullkv";
}

inline std::filesystem::path fixtures_dir() { return std::filesystem::path(RIPPLEKV_TEST_FIXTURES); }

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh scratch folder in the system temp dir, unique per process.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("ripplekv_eval_test_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace ripplekv::eval::test
