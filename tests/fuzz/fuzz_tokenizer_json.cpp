// tokenizer.json: loading, then encoding and decoding a fixed text and the input's own bytes.
#include <exception>

#include "fuzz_support.h"
#include "models/tokenizer/tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0 || data[0] != '{') return 0;  // anything else is read as a sentencepiece model
  try {
    ripplekv::Tokenizer tok(ripplekv::fuzz::scratch_file("tokenizer.json", data, size));
    for (const std::string text : {std::string("Hello world 12345 \xC3\xA9\xE4\xB8\xAD <|im_end|>\n\t  x"),
                                   std::string(reinterpret_cast<const char*>(data), std::min<size_t>(size, 256))}) {
      try {
        const auto ids = tok.encode(text, true);
        (void)tok.decode(ids);
      } catch (const std::exception&) {
      }
    }
  } catch (const std::exception&) {
  }
  return 0;
}
