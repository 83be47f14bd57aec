#include "gpu/device_choice.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "gpu/vk_status.h"

namespace rgfx::gpu {
namespace {

using ::testing::HasSubstr;

const std::vector<DeviceCandidate> kDevices = {
    {"llvmpipe (LLVM 15.0.6, 256 bits)", "cpu"},
    {"Intel(R) UHD Graphics", "integrated"},
    {"NVIDIA H100 80GB HBM3", "discrete"},
    {"NVIDIA H100 80GB HBM3 (second)", "discrete"},
};

TEST(DeviceChoice, PrefersTheFirstDiscreteGpu) { EXPECT_EQ(*ChooseDevice(kDevices, ""), 2); }

TEST(DeviceChoice, FallsBackIntegratedThenVirtualThenCpu) {
  EXPECT_EQ(*ChooseDevice({kDevices[0], kDevices[1]}, ""), 1);
  EXPECT_EQ(*ChooseDevice({kDevices[0], {"virtio", "virtual"}}, ""), 1);
  EXPECT_EQ(*ChooseDevice({kDevices[0]}, ""), 0);
}

TEST(DeviceChoice, SkipsDevicesWithoutComputeQueue) {
  EXPECT_EQ(*ChooseDevice({{"gfx only", "discrete", false}, kDevices[0]}, ""), 1);
}

TEST(DeviceChoice, OverrideByIndexOrNameSubstring) {
  EXPECT_EQ(*ChooseDevice(kDevices, "0"), 0);
  EXPECT_EQ(*ChooseDevice(kDevices, "llvmpipe"), 0);
  EXPECT_EQ(*ChooseDevice(kDevices, "uhd"), 1);  // case-insensitive
}

TEST(DeviceChoice, BadOverrideListsTheDevices) {
  auto bad_index = ChooseDevice(kDevices, "7");
  EXPECT_EQ(bad_index.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(bad_index.status().message(), HasSubstr("0: llvmpipe"));
  auto bad_name = ChooseDevice(kDevices, "radeon");
  EXPECT_THAT(bad_name.status().message(), HasSubstr("no device name contains it"));
  EXPECT_FALSE(ChooseDevice({}, "").ok());
}

TEST(VkStatus, DeviceLossAndOutOfMemoryAreDistinct) {
  const absl::Status lost = VkStatus(VK_ERROR_DEVICE_LOST, "vkQueueSubmit");
  EXPECT_TRUE(IsDeviceLost(lost));
  EXPECT_EQ(lost.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(lost.message(), HasSubstr("vkQueueSubmit failed: VK_ERROR_DEVICE_LOST"));
  const absl::Status oom = VkStatus(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory");
  EXPECT_EQ(oom.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(IsDeviceLost(oom));
  EXPECT_EQ(VkStatus(VK_TIMEOUT, "wait").code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(VkStatus(VK_SUCCESS, "x").ok());
  EXPECT_FALSE(IsDeviceLost(absl::UnavailableError("draining")));
}

TEST(DevicesChoice, AllIsEveryGpuInOrder) {
  EXPECT_EQ(*ChooseDevices(kDevices, "all"), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(*ChooseDevices(kDevices, "ALL"), (std::vector<int>{1, 2, 3}));
  // A GPU without a compute queue is left out.
  EXPECT_EQ(*ChooseDevices({{"gfx only", "discrete", false}, kDevices[2]}, "all"),
            (std::vector<int>{1}));
}

TEST(DevicesChoice, AllWithoutGpusIsTheAutomaticChoice) {
  EXPECT_EQ(*ChooseDevices({kDevices[0]}, "all"), (std::vector<int>{0}));
}

TEST(DevicesChoice, ListOfIndicesAndNames) {
  EXPECT_EQ(*ChooseDevices(kDevices, "3, 2"), (std::vector<int>{3, 2}));
  EXPECT_EQ(*ChooseDevices(kDevices, "second,uhd"), (std::vector<int>{3, 1}));
  // The same device twice: two engines on one GPU (allowed; tests use it).
  EXPECT_EQ(*ChooseDevices(kDevices, "0,0"), (std::vector<int>{0, 0}));
}

TEST(DeviceSupportCheck, NamesTheMissingRequirement) {
  const uint32_t v12 = (1u << 22) | (2u << 12), v11 = (1u << 22) | (1u << 12);
  EXPECT_TRUE(CheckDeviceSupport({"gpu", v12, true, true}).ok());
  const absl::Status no_queue = CheckDeviceSupport({"gfx", v12, false, true});
  EXPECT_EQ(no_queue.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(no_queue.message(), HasSubstr("'gfx' has no compute queue"));
  EXPECT_THAT(CheckDeviceSupport({"old", v11, true, true}).message(),
              HasSubstr("'old' supports Vulkan 1.1; rgfx requires Vulkan 1.2"));
  EXPECT_THAT(CheckDeviceSupport({"bare", v12, true, false}).message(),
              HasSubstr("'bare' lacks push descriptors (VK_KHR_push_descriptor)"));
}

TEST(DevicesChoice, NoDeviceSaysWhereToLook) {
  const absl::StatusOr<int> none = ChooseDevice({}, "");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(none.status().message(), HasSubstr("no Vulkan device found"));
  EXPECT_THAT(none.status().message(), HasSubstr("NVIDIA_DRIVER_CAPABILITIES"));
}

TEST(DevicesChoice, BadEntriesAreNamed) {
  EXPECT_THAT(ChooseDevices(kDevices, "0,7").status().message(), HasSubstr("--device=7"));
  EXPECT_THAT(ChooseDevices(kDevices, "0,,1").status().message(), HasSubstr("empty entry"));
  EXPECT_FALSE(ChooseDevices({}, "all").ok());
}

}  // namespace
}  // namespace rgfx::gpu
