// A range of a VkBuffer: what passes bind. Arena allocations hand these out.
#pragma once

#include <volk.h>

#include <cstddef>

namespace rgfx::gpu {

struct BufferSlice {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize offset = 0;
  VkDeviceSize size = 0;
  // Host address of the slice's first byte when its memory is mapped, else null.
  std::byte* mapped = nullptr;
};

}  // namespace rgfx::gpu
