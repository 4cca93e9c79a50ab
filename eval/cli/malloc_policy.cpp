#include "eval/cli/malloc_policy.h"

#include <climits>
#include <cstdlib>
#include <cstring>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ripplekv::cli {

bool keep_freed_memory() {
  const char* choice = std::getenv("RIPPLEKV_MALLOC");
  if (choice && std::strcmp(choice, "system") == 0) return false;
#if defined(__GLIBC__)
  // As GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=... would (mallopt takes an int).
  return mallopt(M_MMAP_MAX, 0) == 1 && mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
#else
  return false;
#endif
}

}  // namespace ripplekv::cli
