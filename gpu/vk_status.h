// Vulkan results as absl::Status. A lost device and running out of memory are
// distinct so callers can act on them (recreate the device; refuse the
// request) instead of crashing.
#pragma once

#include <volk.h>

#include <string_view>

#include "absl/status/status.h"

namespace rgfx::gpu {

// VK_SUCCESS → OK; VK_ERROR_DEVICE_LOST → Unavailable marked as device loss;
// out of host/device memory → ResourceExhausted; VK_TIMEOUT →
// DeadlineExceeded; anything else → Internal. `what` names the call.
absl::Status VkStatus(VkResult result, std::string_view what);

// True for a status made from VK_ERROR_DEVICE_LOST (or MarkDeviceLost).
bool IsDeviceLost(const absl::Status& status);
absl::Status MarkDeviceLost(absl::Status status);

const char* VkResultName(VkResult result);

}  // namespace rgfx::gpu

#define RGFX_VK_RETURN_IF_ERROR(call)                                   \
  do {                                                                  \
    VkResult rgfx_vk_result_ = (call);                                  \
    if (rgfx_vk_result_ != VK_SUCCESS) {                                \
      return ::rgfx::gpu::VkStatus(rgfx_vk_result_, #call);             \
    }                                                                   \
  } while (false)

#define RGFX_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status rgfx_status_ = (expr);        \
    if (!rgfx_status_.ok()) return rgfx_status_; \
  } while (false)

#define RGFX_CONCAT_INNER_(a, b) a##b
#define RGFX_CONCAT_(a, b) RGFX_CONCAT_INNER_(a, b)
#define RGFX_ASSIGN_OR_RETURN(lhs, expr) \
  RGFX_ASSIGN_OR_RETURN_IMPL_(RGFX_CONCAT_(rgfx_statusor_, __LINE__), lhs, expr)
#define RGFX_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
