// The cap on glibc malloc arenas (service/malloc_arenas.h) that keeps the
// server's resident memory flat under load.
#include "service/malloc_arenas.h"

#include <gtest/gtest.h>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace rgfx::service {
namespace {

// How many arenas malloc has made so far (malloc_info's <heap> elements), or
// -1 where that cannot be read.
int MallocArenaCount() {
#if defined(__GLIBC__)
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (out == nullptr) return -1;
  const int rc = malloc_info(0, out);
  std::fclose(out);
  int heaps = -1;
  if (rc == 0 && text != nullptr) {
    heaps = 0;
    const std::string_view info(text, size);
    for (size_t at = info.find("<heap nr="); at != std::string_view::npos;
         at = info.find("<heap nr=", at + 1)) {
      ++heaps;
    }
  }
  std::free(text);
  return heaps;
#else
  return -1;
#endif
}

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
