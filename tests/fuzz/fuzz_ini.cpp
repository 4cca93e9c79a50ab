// INI config / sweep files.
#include <exception>

#include "eval/experiments/ini_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)ripplekv::experiments::parse_ini_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz.ini");
  } catch (const std::exception&) {
  }
  return 0;
}
