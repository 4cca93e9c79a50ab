// Which weights a run uses, for files that must match them (sensitivity profiles): the
// checkpoint's fingerprint (dtype- and device-independent), the legacy fingerprint older
// profiles carry, and the dtype and device of the run. Torch-free.
#pragma once

#include <functional>
#include <string>

namespace ripplekv {

struct ModelIdentity {
  std::string fingerprint;         // "ckpt1:..." for a stored checkpoint; empty: unknown (no checks)
  // Sums of a few tensors in the run's dtype (profiles before ckpt1), computed only when an
  // older profile asks: it widens the embedding and the head to float64, 3.7 GB at a time for
  // Qwen2.5's 151,936 x 1,536 embedding. Empty function: unknown.
  std::function<std::string()> legacy_fingerprint;
  std::string dtype;               // "float32", "bfloat16", "float16"
  std::string device;              // "cpu", "cuda:0", ...
};

}  // namespace ripplekv
