// Per-request staging (gpu/staging_pool.h) on the test device: leases are
// mapped, reused once given back, trimmed when idle, and a lease outlives
// the pool's owner (as after a device loss).
#include <cstring>

#include <gtest/gtest.h>

#include "absl/time/clock.h"
#include "gpu/staging_pool.h"
#include "tests/support/gpu_env.h"

namespace rgfx {
namespace {

class StagingPoolTest : public testing::GpuTest {
 protected:
  // The shared test device, not owned (the pool's shared_ptr must not free it).
  static std::shared_ptr<gpu::Device> Device() {
    return std::shared_ptr<gpu::Device>(testing::SharedGpu().device.get(), [](gpu::Device*) {});
  }
};

TEST(StagingSizeClass, RoundsUpByAtMostAnEighth) {
  for (VkDeviceSize bytes : {1ull, 4096ull, 65537ull, 1920ull * 1080 * 4, 8294401ull, 1ull << 30}) {
    const VkDeviceSize size = gpu::StagingPool::SizeClass(bytes);
    EXPECT_GE(size, bytes);
    if (bytes > (64u << 10)) {
      EXPECT_LE(size, bytes + bytes / 8) << bytes;
    }
  }
  // Nearly equal sizes share a class, so their buffers are interchangeable.
  EXPECT_EQ(gpu::StagingPool::SizeClass(1920 * 1080 * 4), gpu::StagingPool::SizeClass(1920 * 1081 * 4));
}

TEST_F(StagingPoolTest, LeaseIsMappedAndReusedAfterRelease) {
  auto pool = gpu::StagingPool::Create(Device(), gpu::MemoryKind::kUpload);
  absl::StatusOr<gpu::StagingLease> a = pool->Acquire(100000);
  ASSERT_TRUE(a.ok()) << a.status();
  ASSERT_NE(a->slice().mapped, nullptr);
  EXPECT_EQ(a->slice().size, 100000u);
  std::memset(a->slice().mapped, 7, 100000);  // writable over the whole size
  const VkBuffer first = a->slice().buffer;
  EXPECT_EQ(pool->stats().leases, 1);
  // A second lease while the first is held gets another buffer.
  absl::StatusOr<gpu::StagingLease> b = pool->Acquire(100000);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(b->slice().buffer, first);
  a->Release();
  b->Release();
  EXPECT_EQ(pool->stats().leases, 0);
  EXPECT_EQ(pool->stats().allocations, 2u);
  // Given back: the next lease of that class reuses a buffer.
  absl::StatusOr<gpu::StagingLease> c = pool->Acquire(99000);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(pool->stats().allocations, 2u);
}

TEST_F(StagingPoolTest, TrimReleasesIdleBuffersOnly) {
  auto pool = gpu::StagingPool::Create(Device(), gpu::MemoryKind::kReadback);
  {
    absl::StatusOr<gpu::StagingLease> a = pool->Acquire(1 << 20);
    ASSERT_TRUE(a.ok());
  }
  absl::StatusOr<gpu::StagingLease> held = pool->Acquire(4 << 20);
  ASSERT_TRUE(held.ok());
  const uint64_t before = pool->stats().bytes_allocated;
  pool->Trim(absl::Hours(1));  // nothing is that old
  EXPECT_EQ(pool->stats().bytes_allocated, before);
  absl::SleepFor(absl::Milliseconds(20));
  pool->Trim(absl::Milliseconds(10));  // the free 1 MiB buffer goes, the leased one stays
  EXPECT_EQ(pool->stats().bytes_allocated, gpu::StagingPool::SizeClass(4 << 20));
  EXPECT_EQ(pool->stats().leases, 1);
}

TEST_F(StagingPoolTest, KeepsNoMoreFreeMemoryThanItsBound) {
  auto pool = gpu::StagingPool::Create(Device(), gpu::MemoryKind::kUpload, 3 << 20);
  {
    std::vector<gpu::StagingLease> leases;
    for (int i = 0; i < 4; ++i) leases.push_back(*pool->Acquire(1 << 20));
  }
  EXPECT_LE(pool->stats().bytes_allocated, 3u << 20);
}

TEST_F(StagingPoolTest, LeaseOutlivesThePoolsOwner) {
  auto pool = gpu::StagingPool::Create(Device(), gpu::MemoryKind::kUpload);
  absl::StatusOr<gpu::StagingLease> lease = pool->Acquire(4096);
  ASSERT_TRUE(lease.ok());
  std::weak_ptr<gpu::StagingPool> weak = pool;
  pool.reset();  // the engine drops its pool (device loss): the lease keeps it
  EXPECT_FALSE(weak.expired());
  std::memset(lease->slice().mapped, 1, 4096);
  lease->Release();
  EXPECT_TRUE(weak.expired());
}

}  // namespace
}  // namespace rgfx
