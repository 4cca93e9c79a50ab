// Which weights a run uses, for files that must match them (sensitivity profiles): the
// checkpoint's fingerprint (dtype- and device-independent), the legacy fingerprint older
// profiles carry, and the dtype and device of the run. Torch-free.
#pragma once

#include <string>

namespace ripplekv {

struct ModelIdentity {
  std::string fingerprint;         // "ckpt1:..." for a stored checkpoint; empty: unknown (no checks)
  std::string legacy_fingerprint;  // sums of a few tensors in the run's dtype (profiles before ckpt1)
  std::string dtype;               // "float32", "bfloat16", "float16"
  std::string device;              // "cpu", "cuda:0", ...
};

}  // namespace ripplekv
