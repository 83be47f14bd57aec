// Who filters PNG rows (ServiceConfig::gpu_png_rows): the GPU where it is
// one and has 8-bit storage buffers, the CPU on a CPU device unless forced.
#include <gtest/gtest.h>

#include "service/process_job.h"

namespace rgfx::service {
namespace {

gpu::DeviceCaps Caps(std::string type, bool int8) {
  gpu::DeviceCaps caps;
  caps.type = std::move(type);
  caps.storage_int8 = int8;
  return caps;
}

TEST(GpuPngRows, AutoLeavesCpuDevicesToTheCpuFilter) {
  EXPECT_TRUE(GpuFiltersPngRows(GpuPngRows::kAuto, Caps("discrete", true)));
  EXPECT_TRUE(GpuFiltersPngRows(GpuPngRows::kAuto, Caps("integrated", true)));
  EXPECT_FALSE(GpuFiltersPngRows(GpuPngRows::kAuto, Caps("cpu", true)));
  EXPECT_TRUE(GpuFiltersPngRows(GpuPngRows::kOn, Caps("cpu", true)));
  EXPECT_FALSE(GpuFiltersPngRows(GpuPngRows::kOff, Caps("discrete", true)));
}

TEST(GpuPngRows, NeverWithout8BitStorage) {
  for (GpuPngRows mode : {GpuPngRows::kAuto, GpuPngRows::kOn, GpuPngRows::kOff}) {
    EXPECT_FALSE(GpuFiltersPngRows(mode, Caps("discrete", false)));
  }
}

}  // namespace
}  // namespace rgfx::service
