#include "gpu/vk_status.h"

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"

namespace rgfx::gpu {
namespace {
// The payload that marks a status as a lost device, whatever its message.
constexpr char kDeviceLostPayload[] = "rgfx.dev/device-lost";
}  // namespace

const char* VkResultName(VkResult result) {
  switch (result) {
#define RGFX_CASE(x) \
  case x:            \
    return #x;
    RGFX_CASE(VK_SUCCESS)
    RGFX_CASE(VK_NOT_READY)
    RGFX_CASE(VK_TIMEOUT)
    RGFX_CASE(VK_INCOMPLETE)
    RGFX_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    RGFX_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    RGFX_CASE(VK_ERROR_INITIALIZATION_FAILED)
    RGFX_CASE(VK_ERROR_DEVICE_LOST)
    RGFX_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    RGFX_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    RGFX_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    RGFX_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    RGFX_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    RGFX_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    RGFX_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    RGFX_CASE(VK_ERROR_FRAGMENTED_POOL)
    RGFX_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    RGFX_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef RGFX_CASE
    default:
      return "VK_ERROR_UNKNOWN";
  }
}

absl::Status MarkDeviceLost(absl::Status status) {
  status.SetPayload(kDeviceLostPayload, absl::Cord("1"));
  return status;
}

bool IsDeviceLost(const absl::Status& status) {
  return status.GetPayload(kDeviceLostPayload).has_value();
}

absl::Status VkStatus(VkResult result, std::string_view what) {
  if (result == VK_SUCCESS) return absl::OkStatus();
  const std::string message = absl::StrCat(std::string(what), " failed: ", VkResultName(result), " (",
                                           static_cast<int>(result), ")");
  switch (result) {
    case VK_ERROR_DEVICE_LOST:
      return MarkDeviceLost(absl::UnavailableError(message));
    case VK_ERROR_OUT_OF_HOST_MEMORY:
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
    case VK_ERROR_OUT_OF_POOL_MEMORY:
    case VK_ERROR_TOO_MANY_OBJECTS:
      return absl::ResourceExhaustedError(message);
    case VK_TIMEOUT:
      return absl::DeadlineExceededError(message);
    default:
      return absl::InternalError(message);
  }
}

}  // namespace rgfx::gpu
