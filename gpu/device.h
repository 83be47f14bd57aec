// The logical device: the chosen physical device, one compute queue (a
// compute-only family when there is one), the features we use, and its caps.
// Submissions to the queue are serialised by a mutex so several executors can
// share it.
#pragma once

#include <volk.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "gpu/caps.h"
#include "gpu/device_choice.h"
#include "gpu/instance.h"

namespace rgfx::gpu {

struct DeviceOptions {
  std::string override_spec;  // "" = automatic choice; else index or name substring
  // Use the matrix units (VK_NV_cooperative_matrix) where present; off runs
  // every pass on the ordinary paths, for comparisons.
  bool matrix_units = true;
  // Ask the driver for each pipeline's statistics (registers, shared memory,
  // ...: VK_KHR_pipeline_executable_properties) where it offers them, for
  // benchmarks; off by default, since capturing them may bypass the
  // driver's own shader caching.
  bool pipeline_statistics = false;
  // Enable the shader clocks and the multiprocessor builtins where present
  // (DeviceCaps::shader_clock, sm_builtins), for benchmarks that time a
  // kernel's phases from inside it; off by default.
  bool shader_clock = false;
};

// What ChooseDevice picks among: every physical device of `instance`.
std::vector<DeviceCandidate> ListDeviceCandidates(Instance& instance);

class Device {
 public:
  static absl::StatusOr<std::unique_ptr<Device>> Create(Instance& instance,
                                                        const DeviceOptions& options);
  ~Device();  // waits until the GPU is idle
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  Instance& instance() const { return instance_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkDevice vk() const { return device_; }
  uint32_t queue_family() const { return queue_family_; }
  const DeviceCaps& caps() const { return caps_; }
  // One line: name, type, driver and API versions (logged at start).
  std::string Describe() const;

  // Submits to the compute queue (thread-safe).
  VkResult Submit(const VkSubmitInfo& submit, VkFence fence);

  // A memory type with all `required` flags among `type_bits`, preferring
  // one that also has `preferred`; -1 when none.
  int FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags required,
                     VkMemoryPropertyFlags preferred = 0) const;

 private:
  explicit Device(Instance& instance) : instance_(instance) {}
  Instance& instance_;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPhysicalDeviceMemoryProperties memory_{};
  DeviceCaps caps_;
  absl::Mutex queue_mu_;
};

}  // namespace rgfx::gpu
