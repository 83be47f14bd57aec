#include "service/memory_budget.h"

#include <unistd.h>

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rgfx::service {
namespace {
std::string MiB(uint64_t bytes) { return absl::StrFormat("%.1f MiB", bytes / 1048576.0); }
}  // namespace

MemoryBudget::Reservation& MemoryBudget::Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    Release();
    budget_ = std::exchange(other.budget_, nullptr);
    host_bytes_ = std::exchange(other.host_bytes_, 0);
  }
  return *this;
}

void MemoryBudget::Reservation::Release() {
  if (budget_ == nullptr) return;
  std::exchange(budget_, nullptr)->Give(std::exchange(host_bytes_, 0));
}

MemoryBudget::MemoryBudget(uint64_t host_bytes, uint64_t gpu_bytes, int workers)
    : host_budget_(host_bytes), gpu_budget_(gpu_bytes), workers_(std::max(workers, 1)) {}

absl::StatusOr<MemoryBudget::Reservation> MemoryBudget::Reserve(uint64_t host_bytes,
                                                               uint64_t gpu_bytes) {
  if (gpu_bytes > gpu_per_worker()) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the graph needs ", MiB(gpu_bytes), " of GPU memory for its buffers at these image sizes; "
        "one GPU worker may hold ", MiB(gpu_per_worker()), " (--gpu_memory_budget_mb=",
        gpu_budget_ >> 20, " shared by ", workers_, " workers): use smaller images or fewer "
        "intermediate resources"));
  }
  if (host_bytes > host_budget_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the request needs ", MiB(host_bytes), " of host memory for its pixels, more than the "
        "whole --host_memory_budget_mb=", host_budget_ >> 20));
  }
  absl::MutexLock lock(&mu_);
  if (host_reserved_ + host_bytes > host_budget_) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "server busy: requests in flight hold ", MiB(host_reserved_), " of the ",
        MiB(host_budget_), " host memory budget and this one needs ", MiB(host_bytes),
        "; retry with backoff"));
  }
  host_reserved_ += host_bytes;
  Reservation reservation;
  reservation.budget_ = this;
  reservation.host_bytes_ = host_bytes;
  return reservation;
}

uint64_t MemoryBudget::host_reserved() const {
  absl::MutexLock lock(&mu_);
  return host_reserved_;
}

void MemoryBudget::Give(uint64_t host_bytes) {
  absl::MutexLock lock(&mu_);
  host_reserved_ -= host_bytes;
}

uint64_t DefaultHostMemoryBudget() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 4ull << 30;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
}

uint64_t DefaultGpuMemoryBudget(uint64_t device_local_heap_bytes) {
  return device_local_heap_bytes / 4 * 3;
}

}  // namespace rgfx::service
