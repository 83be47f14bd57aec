#include "gpu/arena.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace rgfx::gpu {
namespace {
VkDeviceSize AlignUp(VkDeviceSize value, VkDeviceSize alignment) {
  return (value + alignment - 1) / alignment * alignment;
}
}  // namespace

Arena::Arena(Device& device, MemoryKind kind, VkDeviceSize min_block_bytes)
    : device_(device), kind_(kind), min_block_bytes_(min_block_bytes) {}

absl::StatusOr<BufferSlice> Arena::Allocate(VkDeviceSize bytes, VkDeviceSize alignment) {
  alignment = std::max<VkDeviceSize>(alignment, device_.caps().min_storage_buffer_offset_alignment);
  bytes = std::max<VkDeviceSize>(bytes, 4);
  this_run_ += AlignUp(bytes, alignment);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const VkDeviceSize offset = AlignUp(used_[i], alignment);
    if (offset + bytes <= blocks_[i].size()) {
      used_[i] = offset + bytes;
      return blocks_[i].Slice(offset, bytes);
    }
  }
  // A new block: at least the minimum, at most what one allocation may be.
  const VkDeviceSize limit = device_.caps().max_memory_allocation_size;
  if (AlignUp(bytes, alignment) > limit) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "a buffer of ", bytes, " bytes exceeds the device's maxMemoryAllocationSize (", limit, ")"));
  }
  VkDeviceSize block = std::max({min_block_bytes_, AlignUp(bytes, alignment), high_water_});
  block = std::min(block, limit);
  auto buffer = Buffer::Create(device_, block, kind_);
  if (!buffer.ok()) return buffer.status();
  ++allocations_;
  blocks_.push_back(std::move(*buffer));
  used_.push_back(bytes);
  return blocks_.back().Slice(0, bytes);
}

void Arena::Reset() {
  high_water_ = std::max(high_water_, this_run_);
  this_run_ = 0;
  std::fill(used_.begin(), used_.end(), 0);
  // Several blocks mean fragmentation: replace them with one that fits the
  // largest run seen, when a single allocation may be that big.
  if (blocks_.size() > 1 && high_water_ <= device_.caps().max_memory_allocation_size) {
    blocks_.clear();
    used_.clear();
  }
}

void Arena::ReleaseAll() {
  blocks_.clear();
  used_.clear();
  high_water_ = 0;
  this_run_ = 0;
}

VkDeviceSize Arena::capacity() const {
  VkDeviceSize total = 0;
  for (const auto& b : blocks_) total += b.size();
  return total;
}

}  // namespace rgfx::gpu
