// Paths the eval tests read: the shared LongBench data (read-only) and the
// checked-in fixtures; and their scratch folders (tests/test_support.h's).
#pragma once

#include <filesystem>
#include <string>

#include "test_support.h"

namespace ripplekv::eval::test {

inline std::filesystem::path longbench_data_dir() {
  return std::filesystem::path(RIPPLEKV_SHARED_DATA) / "longbench";
}

inline std::filesystem::path reference_predictions_dir() {
  return longbench_data_dir() / "reference_predictions" / "mistral-7b-instruct-v0.2-fullkv";
}

inline std::filesystem::path fixtures_dir() { return std::filesystem::path(RIPPLEKV_TEST_FIXTURES); }

// The shared helpers under the names these tests use: one implementation of each.
using ripplekv::test::read_text;

// A fresh scratch folder in the system temp dir (ripplekv_eval_test_<name>_<pid>), removed at exit.
inline std::filesystem::path scratch_dir(const std::string& name) {
  return ripplekv::test::scratch_dir("eval_test", name);
}

}  // namespace ripplekv::eval::test
