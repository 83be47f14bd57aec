// The device layer on the real test device (lavapipe in CI), validation on.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gpu/arena.h"
#include "gpu/pipeline_cache.h"
#include "kCopyF32.h"
#include "tests/support/gpu_env.h"

namespace rgfx {
namespace {

class DeviceTest : public testing::GpuTest {};

TEST_F(DeviceTest, ReportsCapsTheGraphPlansWith) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  EXPECT_FALSE(caps.name.empty());
  EXPECT_FALSE(caps.driver.empty());
  EXPECT_GE(caps.max_storage_buffer_range, 128u << 20);
  EXPECT_GE(caps.max_workgroup_invocations, 128u);
  EXPECT_GT(caps.subgroup_size, 0u);
  EXPECT_TRUE(caps.timestamps_supported);
  EXPECT_GT(caps.timestamp_period_ns, 0.0);
  EXPECT_THAT(testing::SharedGpu().device->Describe(), ::testing::HasSubstr("Vulkan"));
}

TEST_F(DeviceTest, ValidationIsOnForTests) {
  EXPECT_TRUE(testing::SharedGpu().instance->validation_enabled());
}

TEST_F(DeviceTest, ArenaReusesItsBlocksAfterReset) {
  gpu::Arena arena(*testing::SharedGpu().device, gpu::MemoryKind::kDevice, 1 << 20);
  auto a = arena.Allocate(1000);
  auto b = arena.Allocate(3000, 256);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->buffer, b->buffer);
  EXPECT_EQ(b->offset % 256, 0u);
  EXPECT_GE(b->offset, a->offset + 1000);
  EXPECT_EQ(arena.allocations(), 1u);
  // A run larger than the block adds one; after Reset the two merge into one
  // block big enough for that run, and later runs allocate nothing.
  ASSERT_TRUE(arena.Allocate(2 << 20).ok());
  EXPECT_EQ(arena.blocks(), 2);
  arena.Reset();
  for (int run = 0; run < 3; ++run) {
    ASSERT_TRUE(arena.Allocate(1000).ok());
    ASSERT_TRUE(arena.Allocate(3000).ok());
    ASSERT_TRUE(arena.Allocate(2 << 20).ok());
    arena.Reset();
  }
  EXPECT_EQ(arena.blocks(), 1);
  EXPECT_EQ(arena.allocations(), 3u);
}

TEST_F(DeviceTest, MappedArenasExposeHostMemory) {
  gpu::Arena upload(*testing::SharedGpu().device, gpu::MemoryKind::kUpload, 1 << 16);
  auto slice = upload.Allocate(64);
  ASSERT_TRUE(slice.ok());
  ASSERT_NE(slice->mapped, nullptr);
  slice->mapped[63] = std::byte{7};
}

TEST_F(DeviceTest, ArenaRefusesMoreThanOneAllocationMayHold) {
  gpu::Arena arena(*testing::SharedGpu().device, gpu::MemoryKind::kDevice, 1 << 20);
  auto huge = arena.Allocate(testing::SharedGpu().device->caps().max_memory_allocation_size + 1);
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST_F(DeviceTest, PipelineCacheSavesAndLoadsItsFile) {
  // Build a pipeline through a graph run, then save the driver's cache.
  graph::GraphDesc desc;
  desc.inputs.push_back({"in", {5, 3}});
  desc.outputs.push_back({"in"});
  ASSERT_TRUE(testing::RunGraph(desc, {testing::Bytes(5 * 3 * 4)}).ok());
  const std::string path =
      (std::filesystem::temp_directory_path() / "rgfx_pipeline_cache_test.bin").string();
  std::filesystem::remove(path);
  auto cache = gpu::PipelineCache::Create(*testing::SharedGpu().device, path);
  ASSERT_TRUE(cache.ok()) << cache.status();
  ASSERT_TRUE((*cache)->Save().ok());
  EXPECT_GT(std::filesystem::file_size(path), 0u);
  // A cache created from that file (or from garbage) still works.
  auto reloaded = gpu::PipelineCache::Create(*testing::SharedGpu().device, path);
  EXPECT_TRUE(reloaded.ok()) << reloaded.status();
  {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    std::fputs("not a pipeline cache", f);
    std::fclose(f);
  }
  auto from_garbage = gpu::PipelineCache::Create(*testing::SharedGpu().device, path);
  EXPECT_TRUE(from_garbage.ok()) << from_garbage.status();
  std::filesystem::remove(path);
}

// The bench's register and shared-memory figures: a device asked for
// pipeline statistics reports them per pipeline where the driver offers
// VK_KHR_pipeline_executable_properties (lavapipe and NVIDIA's do); the
// default device captures none.
const gpu::ShaderCode kCopyShader{"copy_f32", kCopyF32, 2, 8};

TEST_F(DeviceTest, PipelineStatisticsAreOffByDefault) {
  const gpu::ShaderCode& copy = kCopyShader;
  const gpu::SpecConstants spec{};
  auto plain = gpu::PipelineCache::Create(*testing::SharedGpu().device);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_TRUE((*plain)->Get(copy, spec).ok());
  EXPECT_FALSE(testing::SharedGpu().device->caps().pipeline_statistics);
  ASSERT_EQ((*plain)->Reports().size(), 1u);
  EXPECT_EQ((*plain)->Reports()[0].shader, "copy_f32");
  EXPECT_TRUE((*plain)->Reports()[0].statistics.empty());
}

TEST_F(DeviceTest, PipelineStatisticsComeWhenAskedAndOffered) {
  const gpu::ShaderCode& copy = kCopyShader;
  const gpu::SpecConstants spec{{7}};  // unused by the shader, but reported
  const char* override_spec = std::getenv("RGFX_TEST_DEVICE");
  auto device = gpu::Device::Create(*testing::SharedGpu().instance,
                                    {.override_spec = override_spec ? override_spec : "",
                                     .pipeline_statistics = true});
  ASSERT_TRUE(device.ok()) << device.status();
  if (!(*device)->caps().pipeline_statistics) {
    GTEST_SKIP() << (*device)->caps().name
                 << " does not offer VK_KHR_pipeline_executable_properties' statistics";
  }
  EXPECT_THAT((*device)->Describe(), ::testing::HasSubstr("pipeline statistics"));
  auto cache = gpu::PipelineCache::Create(**device);
  ASSERT_TRUE(cache.ok()) << cache.status();
  auto pipeline = (*cache)->Get(copy, spec);
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  EXPECT_FALSE((*pipeline)->statistics.empty());
  const std::vector<gpu::PipelineReport> reports = (*cache)->Reports();
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].shader, "copy_f32");
  EXPECT_EQ(reports[0].spec, spec.values);
  EXPECT_EQ(reports[0].statistics, (*pipeline)->statistics);
}


// A pipeline being created (seconds for a large kernel on some drivers)
// holds up only the callers asking for that one: here its creation waits
// until another pipeline has been fetched on another thread, which would
// never happen (and the wait would time out) if creation held the cache's lock.
TEST_F(DeviceTest, PipelineCacheCreatesOutsideItsLock) {
  auto cache = gpu::PipelineCache::Create(*testing::SharedGpu().device);
  ASSERT_TRUE(cache.ok()) << cache.status();
  absl::Notification other_fetched;
  bool other_came_first = false;
  std::atomic<int> creations{0};
  const gpu::SpecConstants slow_spec{{1}}, other_spec{{2}};
  (*cache)->set_before_create_for_testing([&](const gpu::ShaderCode&) {
    if (creations++ == 0) {
      other_came_first = other_fetched.WaitForNotificationWithTimeout(absl::Seconds(30));
    }
  });
  std::thread slow([&] { EXPECT_TRUE((*cache)->Get(kCopyShader, slow_spec).ok()); });
  // Give `slow` time to start its creation; the test holds either way.
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_TRUE((*cache)->Get(kCopyShader, other_spec).ok());
  other_fetched.Notify();
  slow.join();
  EXPECT_TRUE(other_came_first) << "another pipeline waited for a creation in progress";
  EXPECT_EQ((*cache)->size(), 2u);
}

// Many threads asking for the same pipeline at once get one pipeline,
// created once.
TEST_F(DeviceTest, PipelineCacheCreatesEachPipelineOnce) {
  auto cache = gpu::PipelineCache::Create(*testing::SharedGpu().device);
  ASSERT_TRUE(cache.ok()) << cache.status();
  std::atomic<int> creations{0};
  (*cache)->set_before_create_for_testing([&](const gpu::ShaderCode&) {
    ++creations;
    absl::SleepFor(absl::Milliseconds(20));  // the others arrive meanwhile
  });
  constexpr int kThreads = 8;
  std::vector<const gpu::ComputePipeline*> got(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      auto p = (*cache)->Get(kCopyShader, gpu::SpecConstants{{3}});
      ASSERT_TRUE(p.ok()) << p.status();
      got[i] = *p;
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(creations.load(), 1);
  for (const gpu::ComputePipeline* p : got) EXPECT_EQ(p, got[0]);
  EXPECT_NE(got[0]->pipeline, VK_NULL_HANDLE);
  EXPECT_EQ((*cache)->size(), 1u);
  EXPECT_EQ((*cache)->Reports().size(), 1u);
}

}  // namespace
}  // namespace rgfx
