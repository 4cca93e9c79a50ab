// Running a test step on another ATen intra-op thread count. Include after catch_torch.h.
#pragma once

#include <ATen/Parallel.h>

namespace ripplekv::test {

// Runs f with ATen on `threads` intra-op threads, restoring the caller's count after, also
// when f throws.
template <class F>
void with_threads(int threads, F&& f) {
  const int before = at::get_num_threads();
  at::set_num_threads(threads);
  try {
    f();
  } catch (...) {
    at::set_num_threads(before);
    throw;
  }
  at::set_num_threads(before);
}

}  // namespace ripplekv::test
