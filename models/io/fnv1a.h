// FNV-1a 64 over bytes, continuing from `h`: the one hash behind ripplekv's content keys
// (calibration sets and profile cache keys, RULER seeds, fidelity text fingerprints, long
// variant folder names). Callers pass their basis: the older keys start from
// kRipplekvFnvBasis (one digit short of the standard basis, kept so that existing cache keys
// and generated data stay the same), newer ones from the standard kFnvOffsetBasis.
// Header-only, torch-free.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ripplekv {

inline constexpr uint64_t kFnvOffsetBasis = 14695981039346656037ULL;
inline constexpr uint64_t kRipplekvFnvBasis = 1469598103934665603ULL;

inline uint64_t fnv1a64(const void* data, std::size_t n, uint64_t h) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  return h;
}

}  // namespace ripplekv
