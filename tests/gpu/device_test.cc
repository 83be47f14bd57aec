// The device layer on the real test device (lavapipe in CI), validation on.
#include <cstdio>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpu/arena.h"
#include "gpu/pipeline_cache.h"
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

}  // namespace
}  // namespace rgfx
