// The llama2.c header: 28 bytes of fields, then 8 bytes of file size.
#include <cstring>
#include <exception>

#include "models/loaders/llama2c_header.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 36) return 0;
  int32_t header[7];
  uint64_t file_size = 0;
  std::memcpy(header, data, 28);
  std::memcpy(&file_size, data + 28, 8);
  try {
    (void)ripplekv::parse_llama2c_header(header, file_size, "fuzz.bin");
  } catch (const std::exception&) {
  }
  return 0;
}
