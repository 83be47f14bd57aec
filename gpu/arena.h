// Transient memory that lives with a worker and is reused across runs: a few
// large buffers, handed out by bumping an offset and all given back by
// Reset(). Blocks are allocated only when a run needs more than any earlier
// one did, so steady-state requests make no Vulkan allocation.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "gpu/memory.h"

namespace rgfx::gpu {

class Arena {
 public:
  Arena(Device& device, MemoryKind kind, VkDeviceSize min_block_bytes = 64ull << 20);

  // A slice of `bytes` aligned to `alignment` (and to the device's storage
  // offset alignment), valid until Reset().
  absl::StatusOr<BufferSlice> Allocate(VkDeviceSize bytes, VkDeviceSize alignment = 256);
  // Frees every slice at once. If the last run needed several blocks, they
  // are merged into one block large enough for all (on the next Allocate).
  void Reset();

  // Frees every block (no slice may be in use): an idle worker gives its
  // memory back; the next run allocates again.
  void ReleaseAll();

  int blocks() const { return static_cast<int>(blocks_.size()); }
  uint64_t allocations() const { return allocations_; }  // Vulkan allocations so far
  VkDeviceSize capacity() const;

 private:
  Device& device_;
  MemoryKind kind_;
  VkDeviceSize min_block_bytes_;
  std::vector<Buffer> blocks_;
  std::vector<VkDeviceSize> used_;  // bump offset per block
  VkDeviceSize high_water_ = 0;     // bytes the largest run asked for
  VkDeviceSize this_run_ = 0;
  uint64_t allocations_ = 0;
};

}  // namespace rgfx::gpu
