// release_free_heap (eval/engine/heap_release.h): free heap pages above the threshold leave
// resident memory; below it nothing happens.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "eval/engine/heap_release.h"
#include "test_support.h"

using namespace ripplekv;

TEST_CASE("Free heap pages above the threshold go back to the system between samples", "[engine]") {
  // 4,096 blocks of 64 KiB (below glibc's mmap threshold: they come from the heap), each
  // followed by a small block that stays allocated, so the freed blocks are holes inside the
  // heap that free() does not give back by itself (it trims only the heap's top).
  constexpr std::size_t kBlock = 64 << 10, kBlocks = 4096;
  std::vector<char*> blocks, pins;
  for (std::size_t i = 0; i < kBlocks; ++i) {
    blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
    pins.push_back(static_cast<char*>(std::malloc(32)));
    REQUIRE(blocks.back() != nullptr);
    std::memset(blocks.back(), 1, kBlock);  // resident
  }
  for (char* b : blocks) std::free(b);
#if defined(__SANITIZE_ADDRESS__)
  // AddressSanitizer's allocator replaces glibc's heap: there is nothing of glibc's to release,
  // and the call must still be harmless.
  CHECK_FALSE(eval::release_free_heap(std::size_t{1} << 40).released);
  (void)eval::release_free_heap();
#else
  const long freed = test::proc_status_kib("RssAnon");
  REQUIRE(freed > 0);
  // Above the free bytes: nothing is released.
  const auto kept = eval::release_free_heap(std::size_t{1} << 40);
  CHECK_FALSE(kept.released);
  CHECK(kept.free_bytes >= kBlocks * kBlock * 9 / 10);
  CHECK(test::proc_status_kib("RssAnon") > freed - 16 * 1024);
  // Below them: the holes' whole pages leave resident memory.
  const auto given = eval::release_free_heap(64 << 20);
  CHECK(given.released);
  const long after = test::proc_status_kib("RssAnon");
  INFO("RssAnon " << freed << " KiB with the blocks free, " << after << " KiB after release");
  CHECK(freed - after >= 192 * 1024);  // of the 256 MiB freed
#endif
  for (char* p : pins) std::free(p);
}
