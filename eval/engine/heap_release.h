// Giving freed heap memory back to the system between samples.
//
// `ripplekv` keeps freed memory for reuse (eval/cli/malloc_policy.h): a prefill frees and
// allocates hundreds of MB per layer, and reusing them beats faulting fresh pages in. But the
// free chunks one prompt leaves behind stay resident, and the next prompt's allocations do not
// fit them all: a Qwen2.5-Coder-1.5B RULER run at 32k tokens (11 variants, 1 thread) held 7.2
// GiB of anonymous memory after its first prompt and 10.2 GiB after its third. Between
// samples the engine therefore returns the heap's whole free pages (glibc's malloc_trim, which
// releases free pages inside the heap too, not only at its top) once they add up to
// `threshold`: the next prompt faults in what it needs again, a few seconds against minutes
// of prefill, and runs whose prompts leave less free (short prompts, small models) are never
// touched.
#pragma once

#include <cstddef>

namespace ripplekv::eval {

inline constexpr std::size_t kHeapReleaseThreshold = std::size_t{1} << 30;  // 1 GiB

struct HeapRelease {
  std::size_t free_bytes = 0;  // free bytes in malloc's heaps before (0 where unknown)
  bool released = false;       // whether malloc_trim ran
};

// Releases the heaps' free pages when they hold at least `threshold` free bytes (glibc only;
// elsewhere a no-op).
HeapRelease release_free_heap(std::size_t threshold = kHeapReleaseThreshold);

}  // namespace ripplekv::eval
