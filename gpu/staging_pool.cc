#include "gpu/staging_pool.h"

#include <algorithm>
#include <bit>

#include "absl/time/clock.h"

namespace rgfx::gpu {

StagingLease& StagingLease::operator=(StagingLease&& other) noexcept {
  if (this != &other) {
    Release();
    pool_ = std::exchange(other.pool_, nullptr);
    buffer_ = std::move(other.buffer_);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void StagingLease::Release() {
  if (pool_ == nullptr) return;
  std::shared_ptr<StagingPool> pool = std::move(pool_);
  pool_ = nullptr;
  bytes_ = 0;
  pool->GiveBack(std::move(buffer_));
}

StagingPool::StagingPool(std::shared_ptr<Device> device, MemoryKind kind,
                         uint64_t keep_free_bytes)
    : device_(std::move(device)), kind_(kind), keep_free_bytes_(keep_free_bytes) {}

std::shared_ptr<StagingPool> StagingPool::Create(std::shared_ptr<Device> device, MemoryKind kind,
                                                 uint64_t keep_free_bytes) {
  return std::shared_ptr<StagingPool>(new StagingPool(std::move(device), kind, keep_free_bytes));
}

VkDeviceSize StagingPool::SizeClass(VkDeviceSize bytes) {
  // Powers of two in eight steps each: at most 12.5% wasted, and images of
  // nearly the same size share buffers. Small requests share a 64 KiB class.
  bytes = std::max<VkDeviceSize>(bytes, 64 << 10);
  const int top = std::bit_width(bytes - 1);  // 2^top >= bytes
  const VkDeviceSize step = (VkDeviceSize{1} << top) / 16;
  return (bytes + step - 1) / step * step;
}

absl::StatusOr<StagingLease> StagingPool::Acquire(VkDeviceSize bytes) {
  const VkDeviceSize size = SizeClass(bytes);
  StagingLease lease;
  {
    absl::MutexLock lock(&mu_);
    // The smallest free buffer that fits, if it is not much larger.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->buffer.size() >= size && it->buffer.size() <= 2 * size &&
          (best == free_.end() || it->buffer.size() < best->buffer.size())) {
        best = it;
      }
    }
    if (best != free_.end()) {
      lease.buffer_ = std::move(best->buffer);
      free_.erase(best);
    }
  }
  if (lease.buffer_.vk() == VK_NULL_HANDLE) {
    absl::StatusOr<Buffer> buffer = Buffer::Create(*device_, size, kind_);
    if (!buffer.ok()) return buffer.status();
    lease.buffer_ = std::move(*buffer);
    absl::MutexLock lock(&mu_);
    stats_.bytes_allocated += size;
    ++stats_.allocations;
  }
  absl::MutexLock lock(&mu_);
  lease.pool_ = shared_from_this();
  lease.bytes_ = bytes;
  stats_.bytes_leased += lease.buffer_.size();
  ++stats_.leases;
  return lease;
}

void StagingPool::GiveBack(Buffer buffer) {
  absl::MutexLock lock(&mu_);
  stats_.bytes_leased -= buffer.size();
  --stats_.leases;
  uint64_t free_bytes = 0;
  for (const FreeBuffer& f : free_) free_bytes += f.buffer.size();
  if (free_bytes + buffer.size() > keep_free_bytes_) {
    stats_.bytes_allocated -= buffer.size();
    return;  // `buffer` is destroyed here
  }
  free_.push_back({std::move(buffer), absl::Now()});
}

void StagingPool::Trim(absl::Duration idle) {
  std::vector<FreeBuffer> released;  // destroyed outside the lock
  absl::MutexLock lock(&mu_);
  const absl::Time cutoff = absl::Now() - idle;
  for (auto it = free_.begin(); it != free_.end();) {
    if (it->since <= cutoff) {
      stats_.bytes_allocated -= it->buffer.size();
      released.push_back(std::move(*it));
      it = free_.erase(it);
    } else {
      ++it;
    }
  }
}

StagingStats StagingPool::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace rgfx::gpu
