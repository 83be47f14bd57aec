#include "graph/compile_cache.h"

#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/graph/fake_passes.h"

namespace rgfx::graph::testing {
namespace {

class CompileCacheTest : public ::testing::Test {
 protected:
  std::unique_ptr<PassRegistry> registry_ = MakeFakeRegistry();
};

TEST_F(CompileCacheTest, SecondRequestHits) {
  CompileCache cache(*registry_, gpu::LavapipeLikeCaps(), {}, 4);
  bool hit = true;
  auto first = cache.GetOrCompile(BlurChain(2), &hit);
  ASSERT_TRUE(first.ok());
  EXPECT_FALSE(hit);
  auto second = cache.GetOrCompile(BlurChain(2), &hit);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(hit);
  EXPECT_EQ(first->get(), second->get());
  EXPECT_EQ(cache.size(), 1u);
}

TEST_F(CompileCacheTest, InputSizeIsPartOfTheKey) {
  CompileCache cache(*registry_, gpu::LavapipeLikeCaps(), {}, 4);
  bool hit = true;
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(2, 64, 32), &hit).ok());
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(2, 64, 33), &hit).ok());
  EXPECT_FALSE(hit);
  EXPECT_EQ(cache.size(), 2u);
}

TEST_F(CompileCacheTest, EvictsLeastRecentlyUsed) {
  CompileCache cache(*registry_, gpu::LavapipeLikeCaps(), {}, 2);
  bool hit = false;
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(1)).ok());
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(2)).ok());
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(1), &hit).ok());  // 1 becomes most recent
  EXPECT_TRUE(hit);
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(3)).ok());  // evicts 2
  EXPECT_EQ(cache.size(), 2u);
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(1), &hit).ok());
  EXPECT_TRUE(hit);
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(2), &hit).ok());
  EXPECT_FALSE(hit);
  EXPECT_EQ(cache.size(), 2u);
}

TEST_F(CompileCacheTest, ErrorsAreNotCached) {
  CompileCache cache(*registry_, gpu::LavapipeLikeCaps(), {}, 4);
  GraphDesc bad = BlurChain(1);
  bad.outputs[0].name = "missing";
  bool hit = true;
  auto result = cache.GetOrCompile(bad, &hit);
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(hit);
  EXPECT_EQ(cache.size(), 0u);
  result = cache.GetOrCompile(bad, &hit);
  EXPECT_FALSE(result.ok());
  EXPECT_FALSE(hit);
}

TEST_F(CompileCacheTest, UsesItsLimits) {
  CompileLimits limits;
  limits.max_passes = 1;
  CompileCache cache(*registry_, gpu::LavapipeLikeCaps(), limits, 4);
  EXPECT_EQ(cache.limits().max_passes, 1);
  EXPECT_EQ(cache.GetOrCompile(BlurChain(2)).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(CompileCacheTest, ZeroCapacityCachesNothing) {
  CompileCache cache(*registry_, gpu::LavapipeLikeCaps(), {}, 0);
  bool hit = true;
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(1), &hit).ok());
  ASSERT_TRUE(cache.GetOrCompile(BlurChain(1), &hit).ok());
  EXPECT_FALSE(hit);
  EXPECT_EQ(cache.size(), 0u);
}

TEST_F(CompileCacheTest, IsSafeFromManyThreads) {
  CompileCache cache(*registry_, gpu::LavapipeLikeCaps(), {}, 3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 50; ++i) {
        auto graph = cache.GetOrCompile(BlurChain(1 + (i + t) % 5));
        ASSERT_TRUE(graph.ok());
        EXPECT_EQ((*graph)->stats.passes_run, 1 + (i + t) % 5);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(cache.size(), 3u);
}

}  // namespace
}  // namespace rgfx::graph::testing
