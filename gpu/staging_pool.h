// Host-visible staging memory owned per request in flight (DESIGN.md §9):
// a request takes a lease when it is admitted to the pipeline, decodes its
// PNGs straight into the lease's mapped memory, the GPU copies from it, and
// the next request reuses the buffer once the lease is given back. Nothing
// is copied between "decoded pixels" and "upload memory": they are the same
// bytes.
//
// Buffers are kept in size classes (a power of two and its 1/8 steps) so a
// stream of 1080p requests reuses the same few buffers; free buffers beyond
// the last request's needs are released after an idle period (Trim).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gpu/memory.h"

namespace rgfx::gpu {

class StagingPool;

// A buffer held by one request; given back to the pool when destroyed.
// Move-only. A lease keeps its pool, and the pool its device, alive: after a
// device loss the engine makes a new device and new pools at once, and the
// old ones go when the last request holding a lease on them is done.
class StagingLease {
 public:
  StagingLease() = default;
  StagingLease(StagingLease&& other) noexcept { *this = std::move(other); }
  StagingLease& operator=(StagingLease&& other) noexcept;
  ~StagingLease() { Release(); }

  bool valid() const { return pool_ != nullptr; }
  // The first `bytes` the lease was asked for (the buffer may be larger).
  BufferSlice slice() const { return buffer_.Slice(0, bytes_); }
  // A part of the lease, e.g. one input among several.
  BufferSlice Slice(VkDeviceSize offset, VkDeviceSize bytes) const {
    return buffer_.Slice(offset, bytes);
  }
  VkDeviceSize bytes() const { return bytes_; }
  void Release();

 private:
  friend class StagingPool;
  std::shared_ptr<StagingPool> pool_;
  Buffer buffer_;
  VkDeviceSize bytes_ = 0;
};

struct StagingStats {
  uint64_t bytes_allocated = 0;  // all buffers, leased and free
  uint64_t bytes_leased = 0;
  int leases = 0;                // outstanding
  uint64_t allocations = 0;      // Vulkan allocations made so far
};

class StagingPool : public std::enable_shared_from_this<StagingPool> {
 public:
  // kind: kUpload or kReadback. `keep_free_bytes`: free buffers above this
  // total are released at once when a lease comes back.
  static std::shared_ptr<StagingPool> Create(std::shared_ptr<Device> device, MemoryKind kind,
                                             uint64_t keep_free_bytes = 512ull << 20);
  StagingPool(const StagingPool&) = delete;
  StagingPool& operator=(const StagingPool&) = delete;

  // A lease of at least `bytes` (> 0). ResourceExhausted when the device
  // cannot allocate it.
  absl::StatusOr<StagingLease> Acquire(VkDeviceSize bytes);

  // Releases free buffers that have not been leased for `idle`.
  void Trim(absl::Duration idle);
  StagingStats stats() const;

  // The size class `bytes` is rounded up to (exposed for tests).
  static VkDeviceSize SizeClass(VkDeviceSize bytes);

 private:
  friend class StagingLease;
  StagingPool(std::shared_ptr<Device> device, MemoryKind kind, uint64_t keep_free_bytes);
  void GiveBack(Buffer buffer);

  struct FreeBuffer {
    Buffer buffer;
    absl::Time since;
  };
  // Declared first so it is destroyed last, after every buffer.
  const std::shared_ptr<Device> device_;
  const MemoryKind kind_;
  const uint64_t keep_free_bytes_;
  mutable absl::Mutex mu_;
  std::vector<FreeBuffer> free_ ABSL_GUARDED_BY(mu_);
  StagingStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rgfx::gpu
