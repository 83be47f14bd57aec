// One worker's command recording: a pool, a primary command buffer, a fence
// and a timestamp query pool. Record, submit, wait; then again.
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gpu/device.h"

namespace rgfx::gpu {

class CommandContext {
 public:
  static absl::StatusOr<std::unique_ptr<CommandContext>> Create(Device& device);
  ~CommandContext();
  CommandContext(const CommandContext&) = delete;
  CommandContext& operator=(const CommandContext&) = delete;

  // Starts recording; `timestamps` query slots are reset in the buffer (the
  // pool grows when a graph needs more).
  absl::StatusOr<VkCommandBuffer> Begin(uint32_t timestamps);
  // Writes timestamp `slot` once all earlier work reaches `stage`.
  void WriteTimestamp(uint32_t slot, VkPipelineStageFlagBits stage);
  absl::Status SubmitAndWait(absl::Duration timeout);
  // Timestamps in nanoseconds since an arbitrary origin (masked with
  // timestampValidBits, scaled by timestampPeriod); empty when the device has
  // no timestamps.
  absl::StatusOr<std::vector<uint64_t>> ReadTimestamps(uint32_t count);

  Device& device() const { return device_; }

 private:
  explicit CommandContext(Device& device) : device_(device) {}
  absl::Status EnsureQueryPool(uint32_t count);
  Device& device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  uint32_t query_capacity_ = 0;
};

}  // namespace rgfx::gpu
