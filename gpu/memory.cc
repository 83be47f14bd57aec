#include "gpu/memory.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "gpu/vk_status.h"

namespace rgfx::gpu {

absl::StatusOr<Buffer> Buffer::Create(Device& device, VkDeviceSize bytes, MemoryKind kind) {
  if (bytes == 0) return absl::InvalidArgumentError("buffer of 0 bytes");
  if (bytes > device.caps().max_memory_allocation_size) {
    return absl::ResourceExhaustedError(
        absl::StrCat("buffer of ", bytes, " bytes exceeds the device's maxMemoryAllocationSize (",
                     device.caps().max_memory_allocation_size, ")"));
  }
  Buffer buffer;
  buffer.device_ = device.vk();
  buffer.size_ = bytes;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = bytes;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  RGFX_VK_RETURN_IF_ERROR(vkCreateBuffer(device.vk(), &info, nullptr, &buffer.buffer_));

  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device.vk(), buffer.buffer_, &req);
  VkMemoryPropertyFlags required = 0;
  VkMemoryPropertyFlags preferred = 0;
  switch (kind) {
    case MemoryKind::kDevice:
      required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryKind::kUpload:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      // Decoders write straight into upload memory and may read back what
      // they wrote (a PNG row's filter reads the row above): uncached
      // (write-combined) memory would make every such read a bus trip.
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      break;
    case MemoryKind::kReadback:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      break;
  }
  const int type = device.FindMemoryType(req.memoryTypeBits, required, preferred);
  if (type < 0) return absl::InternalError("no suitable Vulkan memory type");
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = static_cast<uint32_t>(type);
  RGFX_VK_RETURN_IF_ERROR(vkAllocateMemory(device.vk(), &alloc, nullptr, &buffer.memory_));
  RGFX_VK_RETURN_IF_ERROR(vkBindBufferMemory(device.vk(), buffer.buffer_, buffer.memory_, 0));
  if (kind != MemoryKind::kDevice) {
    void* ptr = nullptr;
    RGFX_VK_RETURN_IF_ERROR(vkMapMemory(device.vk(), buffer.memory_, 0, VK_WHOLE_SIZE, 0, &ptr));
    buffer.mapped_ = static_cast<std::byte*>(ptr);
  }
  return buffer;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    Release();
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

Buffer::~Buffer() { Release(); }

void Buffer::Release() {
  if (device_ == VK_NULL_HANDLE) return;
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);  // unmaps too
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  device_ = VK_NULL_HANDLE;
}

BufferSlice Buffer::Slice(VkDeviceSize offset, VkDeviceSize bytes) const {
  return BufferSlice{buffer_, offset, bytes, mapped_ ? mapped_ + offset : nullptr};
}

}  // namespace rgfx::gpu
