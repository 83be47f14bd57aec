#include "gpu/command_context.h"

#include "gpu/vk_status.h"

namespace rgfx::gpu {

absl::StatusOr<std::unique_ptr<CommandContext>> CommandContext::Create(Device& device) {
  std::unique_ptr<CommandContext> self(new CommandContext(device));
  VkCommandPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool_info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool_info.queueFamilyIndex = device.queue_family();
  RGFX_VK_RETURN_IF_ERROR(vkCreateCommandPool(device.vk(), &pool_info, nullptr, &self->pool_));
  VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  alloc.commandPool = self->pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  RGFX_VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(device.vk(), &alloc, &self->cmd_));
  // Created signalled: "nothing pending", so waiting on it before the first
  // submission (e.g. in the destructor) returns at once.
  VkFenceCreateInfo fence_info{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  fence_info.flags = VK_FENCE_CREATE_SIGNALED_BIT;
  RGFX_VK_RETURN_IF_ERROR(vkCreateFence(device.vk(), &fence_info, nullptr, &self->fence_));
  return self;
}

CommandContext::~CommandContext() {
  VkDevice d = device_.vk();
  // The fence is only unsignalled while a submission is pending; wait for it
  // so nothing is destroyed under the GPU.
  if (fence_ != VK_NULL_HANDLE) {
    vkWaitForFences(d, 1, &fence_, VK_TRUE, UINT64_MAX);
    vkDestroyFence(d, fence_, nullptr);
  }
  if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(d, queries_, nullptr);
  if (pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(d, pool_, nullptr);
}

absl::Status CommandContext::EnsureQueryPool(uint32_t count) {
  if (!device_.caps().timestamps_supported || count <= query_capacity_) return absl::OkStatus();
  if (queries_ != VK_NULL_HANDLE) vkDestroyQueryPool(device_.vk(), queries_, nullptr);
  queries_ = VK_NULL_HANDLE;
  const uint32_t capacity = std::max<uint32_t>(count, 64);
  VkQueryPoolCreateInfo info{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  info.queryType = VK_QUERY_TYPE_TIMESTAMP;
  info.queryCount = capacity;
  RGFX_VK_RETURN_IF_ERROR(vkCreateQueryPool(device_.vk(), &info, nullptr, &queries_));
  query_capacity_ = capacity;
  return absl::OkStatus();
}

absl::StatusOr<VkCommandBuffer> CommandContext::Begin(uint32_t timestamps) {
  RGFX_RETURN_IF_ERROR(EnsureQueryPool(timestamps));
  RGFX_VK_RETURN_IF_ERROR(vkResetCommandBuffer(cmd_, 0));
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  RGFX_VK_RETURN_IF_ERROR(vkBeginCommandBuffer(cmd_, &begin));
  if (queries_ != VK_NULL_HANDLE && timestamps > 0) {
    vkCmdResetQueryPool(cmd_, queries_, 0, timestamps);
  }
  return cmd_;
}

void CommandContext::WriteTimestamp(uint32_t slot, VkPipelineStageFlagBits stage) {
  if (queries_ == VK_NULL_HANDLE) return;
  vkCmdWriteTimestamp(cmd_, stage, queries_, slot);
}

absl::Status CommandContext::SubmitAndWait(absl::Duration timeout) {
  RGFX_VK_RETURN_IF_ERROR(vkEndCommandBuffer(cmd_));
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd_;
  RGFX_VK_RETURN_IF_ERROR(vkResetFences(device_.vk(), 1, &fence_));
  RGFX_VK_RETURN_IF_ERROR(device_.Submit(submit, fence_));
  const uint64_t ns = static_cast<uint64_t>(absl::ToInt64Nanoseconds(timeout));
  const VkResult wait = vkWaitForFences(device_.vk(), 1, &fence_, VK_TRUE, ns);
  if (wait == VK_TIMEOUT) {
    // The GPU still owns the command buffer and memory: wait it out rather
    // than reuse them under it, then report the timeout.
    vkWaitForFences(device_.vk(), 1, &fence_, VK_TRUE, UINT64_MAX);
  }
  return VkStatus(wait, "waiting for the GPU");
}

absl::StatusOr<std::vector<uint64_t>> CommandContext::ReadTimestamps(uint32_t count) {
  std::vector<uint64_t> raw;
  if (queries_ == VK_NULL_HANDLE || count == 0) return raw;
  raw.resize(count);
  RGFX_VK_RETURN_IF_ERROR(vkGetQueryPoolResults(device_.vk(), queries_, 0, count,
                                                count * sizeof(uint64_t), raw.data(),
                                                sizeof(uint64_t),
                                                VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const DeviceCaps& caps = device_.caps();
  const uint64_t mask =
      caps.timestamp_valid_bits >= 64 ? ~0ull : ((1ull << caps.timestamp_valid_bits) - 1);
  for (auto& t : raw) {
    t = static_cast<uint64_t>(static_cast<double>(t & mask) * caps.timestamp_period_ns);
  }
  return raw;
}

}  // namespace rgfx::gpu
