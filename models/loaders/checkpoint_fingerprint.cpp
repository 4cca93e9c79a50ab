#include "models/loaders/checkpoint_fingerprint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace ripplekv {
namespace {

constexpr std::size_t kWindow = 4096;
constexpr std::size_t kWindows = 16;
constexpr std::string_view kPrefix = "ckpt1:";

}  // namespace

void CheckpointFingerprint::mix(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i) {
    hash_ ^= p[i];
    hash_ *= 0x100000001b3ULL;
  }
}

void CheckpointFingerprint::add_tensor(std::string_view name, std::string_view stored_dtype,
                                       const std::vector<int64_t>& shape, const void* data, std::size_t bytes) {
  const std::string header = fmt::format("{}|{}|{}|{};", name, stored_dtype, fmt::join(shape, ","), bytes);
  mix(header.data(), header.size());
  const auto* p = static_cast<const unsigned char*>(data);
  if (bytes <= kWindow * (kWindows + 1)) {
    mix(p, bytes);
    return;
  }
  const std::size_t stride = (bytes - kWindow) / kWindows;
  for (std::size_t w = 0; w < kWindows; ++w) mix(p + w * stride, kWindow);
  mix(p + bytes - kWindow, kWindow);
}

std::string CheckpointFingerprint::value() const { return fmt::format("{}{:016x}", kPrefix, hash_); }

bool CheckpointFingerprint::is_checkpoint_fingerprint(std::string_view fingerprint) {
  return fingerprint.substr(0, kPrefix.size()) == kPrefix;
}

}  // namespace ripplekv
