// How `ripplekv` asks glibc's malloc to manage memory. A prefill allocates and frees tensors
// of hundreds of MB per layer (attention scores that H2O and CAKE observe); by default glibc
// serves those with mmap and returns them with munmap, so every layer faults the same pages
// in again (about 2 s per GiB first touched on the development VM: the engine's prefill ran
// 1.6x slower). keep_freed_memory() makes malloc keep freed memory for reuse instead (no mmap
// for large blocks, no trimming); peak resident memory is then the high-water mark of a
// sample, as the engine gives free pages back between samples (eval/engine/heap_release.h).
// RIPPLEKV_MALLOC=system in the environment leaves glibc's defaults alone.
#pragma once

namespace ripplekv::cli {

// Returns true when the policy was applied.
bool keep_freed_memory();

}  // namespace ripplekv::cli
