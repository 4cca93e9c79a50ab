// The safetensors header parser: first 8 bytes = the data section's size, the rest the header.
#include <cstring>
#include <exception>

#include "models/loaders/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 8) return 0;
  uint64_t data_size = 0;
  std::memcpy(&data_size, data, 8);
  try {
    (void)ripplekv::parse_safetensors_header(std::string(reinterpret_cast<const char*>(data + 8), size - 8),
                                             data_size % (1ull << 40), "fuzz");
  } catch (const std::exception&) {
  }
  return 0;
}
