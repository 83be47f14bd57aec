// Admission by memory (DESIGN.md §8: memory bounded by construction). Before
// a request allocates anything, it reserves what its compiled graph and its
// images need:
// - host: its staging (decoded inputs, downloaded outputs) plus room for its
//   encoded outputs, against a budget shared by all requests in flight;
// - GPU: the graph's device buffers, against one worker's share of the GPU
//   budget (each worker's transient memory holds one graph at a time).
// Over budget is RESOURCE_EXHAUSTED naming the budget, never an allocation
// that fails later or takes the memory other requests need.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace rgfx::service {

class MemoryBudget {
 public:
  // Host bytes held by one request; given back when destroyed. Move-only.
  class Reservation {
   public:
    Reservation() = default;
    Reservation(Reservation&& other) noexcept { *this = std::move(other); }
    Reservation& operator=(Reservation&& other) noexcept;
    ~Reservation() { Release(); }
    void Release();
    uint64_t host_bytes() const { return host_bytes_; }

   private:
    friend class MemoryBudget;
    MemoryBudget* budget_ = nullptr;
    uint64_t host_bytes_ = 0;
  };

  // `host_bytes`: all requests in flight together; `gpu_bytes`: the whole
  // GPU budget, shared equally by `workers`.
  MemoryBudget(uint64_t host_bytes, uint64_t gpu_bytes, int workers);

  absl::StatusOr<Reservation> Reserve(uint64_t host_bytes, uint64_t gpu_bytes);

  uint64_t host_budget() const { return host_budget_; }
  uint64_t gpu_budget() const { return gpu_budget_; }
  uint64_t gpu_per_worker() const { return gpu_budget_ / workers_; }
  uint64_t host_reserved() const;

 private:
  void Give(uint64_t host_bytes);
  const uint64_t host_budget_;
  const uint64_t gpu_budget_;
  const int workers_;
  mutable absl::Mutex mu_;
  uint64_t host_reserved_ ABSL_GUARDED_BY(mu_) = 0;
};

// Defaults derived from the machine: half the physical memory for the host
// budget, three quarters of the largest device-local heap for the GPU.
uint64_t DefaultHostMemoryBudget();
uint64_t DefaultGpuMemoryBudget(uint64_t device_local_heap_bytes);

}  // namespace rgfx::service
