// Paths the tests use: the shared data beside the repo and the committed fixtures.
#pragma once

#include <string>

namespace ripplekv::test {
inline std::string shared_data(const std::string& rel) { return std::string(RIPPLEKV_SHARED_DATA) + "/" + rel; }
inline std::string fixture(const std::string& rel) { return std::string(RIPPLEKV_TEST_FIXTURES) + "/" + rel; }
}  // namespace ripplekv::test
