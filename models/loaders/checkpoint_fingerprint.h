// The identity of a checkpoint as stored on disk, independent of the dtype and device a run
// converts it to: FNV-1a 64 over each tensor's name, stored dtype, shape and a fixed sample of
// its stored bytes (all of a small tensor; 16 evenly spaced 4 KiB windows and the last bytes of
// a large one). Any fine-tune or re-quantization changes nearly every weight and so the value;
// reading ~64 KiB per tensor keeps it cheap for multi-GB checkpoints. Torch-free.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ripplekv {

class CheckpointFingerprint {
 public:
  void add_tensor(std::string_view name, std::string_view stored_dtype, const std::vector<int64_t>& shape,
                  const void* data, std::size_t bytes);
  // "ckpt1:<16 hex digits>".
  std::string value() const;
  static bool is_checkpoint_fingerprint(std::string_view fingerprint);

 private:
  void mix(const void* data, std::size_t bytes);
  uint64_t hash_ = 0xcbf29ce484222325ULL;
};

}  // namespace ripplekv
