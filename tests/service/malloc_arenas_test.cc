// The cap on glibc malloc arenas (service/malloc_arenas.h) that keeps the
// server's resident memory flat under load.
#include "service/malloc_arenas.h"

#include <gtest/gtest.h>

#include <barrier>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

namespace rgfx::service {
namespace {

// Threads that all allocate at the same time, as the server's do. Without a
// cap glibc gives most of them an arena of their own.
void AllocateFromThreads(int threads) {
  std::barrier all_started(threads);
  std::vector<std::jthread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      all_started.arrive_and_wait();  // alive together: no arena is handed down
      for (int i = 0; i < 64; ++i) {
        // Above the per-thread cache's sizes, below the mmap threshold:
        // served by the thread's arena.
        void* block = std::malloc(64 * 1024);
        std::memset(block, i, 64 * 1024);
        asm volatile("" : : "g"(block) : "memory");  // the block must really exist
        std::free(block);
      }
      all_started.arrive_and_wait();
    });
  }
}

TEST(MallocArenas, CapHoldsWithManyAllocatingThreads) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer replaces malloc: glibc arenas do not exist in this build";
#else
  if (MallocArenaCount() < 0) GTEST_SKIP() << "not glibc: malloc_info cannot be read";
  // Before any thread of this test allocates (gtest's main thread owns arena 0).
  ASSERT_TRUE(LimitMallocArenas(2).ok());
  AllocateFromThreads(24);
  const int arenas = MallocArenaCount();
  EXPECT_GE(arenas, 1);
  EXPECT_LE(arenas, 2) << "malloc made " << arenas << " arenas for 24 threads despite the cap";
#endif
}

TEST(MallocArenas, RefusesANonPositiveCap) {
  EXPECT_EQ(LimitMallocArenas(0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(LimitMallocArenas(-3).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace rgfx::service
