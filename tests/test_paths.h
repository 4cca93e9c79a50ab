// Paths the tests use: the shared data beside the repo and the committed fixtures.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace ripplekv::test {
// The converted Hugging Face directory of a real model that scripts/get_model.sh NAME wrote
// (${RIPPLEKV_MODEL_CACHE:-~/.cache/ripplekv/models}/NAME). Throws (the test fails, never
// skips) with the command to run when it is missing: scripts/test.sh fetches SmolLM2 first.
inline std::string real_model(const std::string& name) {
  const char* cache = std::getenv("RIPPLEKV_MODEL_CACHE");
  const char* home = std::getenv("HOME");
  const std::string dir = (cache && *cache ? std::string(cache) : std::string(home ? home : ".") + "/.cache/ripplekv/models") +
                          "/" + name;
  if (!std::filesystem::exists(dir + "/.complete")) {
    throw std::runtime_error(dir + " is missing: run scripts/get_model.sh " + name);
  }
  return dir;
}
// The word lists scripts/get_ruler_data.sh wrote (${RIPPLEKV_DATA_CACHE:-~/.cache/ripplekv}/ruler/...);
// throws with the command to run when missing (scripts/test.sh fetches them).
inline std::string ruler_words() {
  const char* cache = std::getenv("RIPPLEKV_DATA_CACHE");
  const char* home = std::getenv("HOME");
  const std::string dir = (cache && *cache ? std::string(cache) : std::string(home ? home : ".") + "/.cache/ripplekv") +
                          "/ruler/wonderwords-3.0.1";
  if (!std::filesystem::exists(dir + "/.complete")) throw std::runtime_error(dir + " is missing: run scripts/get_ruler_data.sh");
  return dir;
}
inline std::string shared_data(const std::string& rel) { return std::string(RIPPLEKV_SHARED_DATA) + "/" + rel; }
inline std::string fixture(const std::string& rel) { return std::string(RIPPLEKV_TEST_FIXTURES) + "/" + rel; }
}  // namespace ripplekv::test
