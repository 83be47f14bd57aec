// What the graph and the passes need to know about a device, as plain values
// (no Vulkan handles), so graph compilation and its tests run without a GPU.
#pragma once

#include <cstdint>
#include <string>

namespace rgfx::gpu {

struct DeviceCaps {
  std::string name = "no device";
  std::string type = "none";  // "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver;         // driver name and version as the driver reports them
  std::string api_version;    // e.g. "1.3.230"
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;

  uint64_t max_storage_buffer_range = 128ull << 20;
  uint64_t max_memory_allocation_size = 1ull << 31;
  // Size of the largest DEVICE_LOCAL memory heap: the default GPU memory
  // budget is derived from it.
  uint64_t device_local_heap_bytes = 1ull << 30;
  uint32_t max_compute_shared_memory_bytes = 32 << 10;
  uint32_t max_workgroup_invocations = 1024;
  uint32_t max_workgroup_size[3] = {1024, 1024, 64};
  uint32_t max_workgroup_count[3] = {65535, 65535, 65535};
  uint32_t max_push_constants_bytes = 128;
  uint32_t min_storage_buffer_offset_alignment = 256;
  uint32_t subgroup_size = 32;
  // Relative subgroup shuffles (subgroupShuffleUp) in compute shaders.
  bool subgroup_shuffle_relative = false;
  bool shader_float16 = false;
  // 8-bit integers in storage buffers and in shaders (the export's PNG
  // scanlines are bytes at any offset), enabled on the device when present.
  bool storage_int8 = false;
  // Matrix units: 16×16×16 fp16 products with fp32 accumulation per 32-wide
  // subgroup (VK_NV_cooperative_matrix), enabled on the device when present.
  bool f16_matrix_product_16 = false;
  // Multiprocessors, where the driver says (VK_NV_shader_sm_builtins'
  // shaderSMCount); 0 where it does not. Planners use it to keep a pass's
  // subgroups in one wave (fast's streamed kernel).
  uint32_t multiprocessors = 0;
  // Pipelines are created with their statistics captured
  // (DeviceOptions::pipeline_statistics and VK_KHR_pipeline_executable_properties).
  bool pipeline_statistics = false;
  // Shaders may read the clocks (VK_KHR_shader_clock: the subgroup's and the
  // device's) and, with sm_builtins, which multiprocessor runs them
  // (VK_NV_shader_sm_builtins): enabled on request (DeviceOptions::
  // shader_clock) where present, for rgfx-gpu-bench --phase_clock.
  bool shader_clock = false;
  bool sm_builtins = false;

  // Timestamps on the compute queue; false means timings are "unsupported"
  // rather than zeros.
  bool timestamps_supported = false;
  double timestamp_period_ns = 1.0;
  uint32_t timestamp_valid_bits = 0;
};

// A device like Mesa's lavapipe: the tightest limits we support. Graph tests
// without a GPU plan against it.
inline DeviceCaps LavapipeLikeCaps() {
  DeviceCaps caps;
  caps.name = "test device (lavapipe limits)";
  caps.type = "cpu";
  caps.subgroup_size = 8;
  caps.subgroup_shuffle_relative = true;
  caps.min_storage_buffer_offset_alignment = 16;
  caps.timestamps_supported = true;
  caps.timestamp_valid_bits = 64;
  return caps;
}

}  // namespace rgfx::gpu
