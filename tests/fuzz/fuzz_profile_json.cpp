// A sensitivity profile file.
#include <exception>

#include "core/ripple/sensitivity_profile.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto p = ripplekv::read_profile_json(ripplekv::fuzz::scratch_file("profile.json", data, size));
    (void)p.scores("mean");
    (void)p.scores("p90");
    if (!p.layers.empty() && !p.layers[0].per_text.empty()) (void)p.scores("text_median");
  } catch (const std::exception&) {
  }
  return 0;
}
