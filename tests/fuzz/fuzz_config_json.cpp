// config.json (the HF model config) from text.
#include <exception>

#include "models/config/model_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)ripplekv::parse_hf_config_text(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
  } catch (const std::exception&) {
  }
  return 0;
}
