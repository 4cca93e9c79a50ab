#include "eval/engine/heap_release.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ripplekv::eval {

HeapRelease release_free_heap(std::size_t threshold) {
  HeapRelease out;
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 33)
  out.free_bytes = mallinfo2().fordblks;  // summed over every arena
  if (out.free_bytes >= threshold) {
    malloc_trim(0);
    out.released = true;
  }
#else
  (void)threshold;
#endif
  return out;
}

}  // namespace ripplekv::eval
