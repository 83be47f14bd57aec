// The request pipeline of DESIGN.md §9: admission with a bounded queue, a CPU
// pool for the host-heavy stages (translate/compile/decode before the GPU,
// encode after) and one thread per GPU worker (each with its own Executor),
// so decode and encode of some requests overlap the GPU work of others.
//
// Admission: up to max_in_flight jobs are being processed; up to max_queued
// more wait for a slot; beyond that Submit refuses at once with
// RESOURCE_EXHAUSTED (clients back off rather than pile up). Liveness
// (deadline, cancellation) is checked before each stage, so dead work never
// reaches the GPU.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace rgfx::service {

class Job {
 public:
  virtual ~Job() = default;
  // OK while the client still wants the answer; else DeadlineExceeded or Cancelled.
  virtual absl::Status CheckAlive() = 0;
  virtual absl::Status Prepare() = 0;           // CPU pool
  virtual absl::Status RunGpu(int worker) = 0;  // GPU worker `worker`
  virtual absl::Status Finish() = 0;            // CPU pool
  // Called exactly once, last, with the first failure or OK; the job is
  // deleted right after.
  virtual void Done(const absl::Status& status) = 0;

  // Time spent waiting for a slot, a worker or a CPU thread (nanoseconds).
  int64_t queue_ns() const { return queue_ns_; }

 private:
  friend class Scheduler;
  absl::Time enqueued_;
  int64_t queue_ns_ = 0;
};

struct SchedulerOptions {
  int cpu_threads = 2;
  int gpu_workers = 2;
  int max_in_flight = 8;
  int max_queued = 32;
};

class Scheduler {
 public:
  explicit Scheduler(const SchedulerOptions& options);
  ~Scheduler();  // Drain(), then joins the threads
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Takes the job, or refuses it (ResourceExhausted when full, Unavailable
  // when draining) without calling any of its methods.
  absl::Status Submit(std::unique_ptr<Job> job);

  // Refuses new jobs and waits until every admitted one is Done.
  void Drain();

  int queued() const;
  int in_flight() const;
  const SchedulerOptions& options() const { return options_; }

 private:
  void StartLocked(Job* job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Complete(Job* job, const absl::Status& status);
  void CpuLoop();
  void GpuLoop(int worker);
  void RunPrepare(Job* job);
  void RunFinish(Job* job);
  static void Dequeued(Job* job);

  const SchedulerOptions options_;
  mutable absl::Mutex mu_;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<Job*> waiting_ ABSL_GUARDED_BY(mu_);      // admitted, no slot yet
  std::deque<Job*> to_prepare_ ABSL_GUARDED_BY(mu_);   // CPU, before the GPU
  std::deque<Job*> to_finish_ ABSL_GUARDED_BY(mu_);    // CPU, after: served first
  std::deque<Job*> to_gpu_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;
};

}  // namespace rgfx::service
