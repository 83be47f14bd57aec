// A VkBuffer with its own memory: the blocks arenas are made of. Move-only;
// destruction frees both (callers make sure the GPU is done with it).
#pragma once

#include <volk.h>

#include <cstddef>
#include <memory>

#include "absl/status/statusor.h"
#include "gpu/buffer_slice.h"
#include "gpu/device.h"

namespace rgfx::gpu {

enum class MemoryKind {
  kDevice,    // DEVICE_LOCAL: where passes read and write
  kUpload,    // HOST_VISIBLE|COHERENT, preferably CACHED (decoders read back
              // what they write), written by the host, read by a copy
  kReadback,  // HOST_VISIBLE|COHERENT, preferably CACHED: reading uncached
              // mapped memory is two orders of magnitude slower
};

class Buffer {
 public:
  static absl::StatusOr<Buffer> Create(Device& device, VkDeviceSize bytes, MemoryKind kind);
  Buffer() = default;
  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept;
  ~Buffer();

  VkBuffer vk() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  std::byte* mapped() const { return mapped_; }
  BufferSlice Slice(VkDeviceSize offset, VkDeviceSize size) const;

 private:
  void Release();
  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  std::byte* mapped_ = nullptr;
};

}  // namespace rgfx::gpu
