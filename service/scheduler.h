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
//
// Batching: a GPU worker that takes a job also takes the queued jobs with
// the same non-empty BatchKey() (same compiled graph and sizes), up to
// max_batch, and while other jobs are still being prepared it waits up to
// batch_delay for more; the batch runs as one GPU submission. With a single
// caller nothing is being prepared, so nothing waits.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
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
  // Jobs with equal non-empty keys can share one GPU submission.
  virtual std::string BatchKey() const { return {}; }
  // Runs `batch` (this job first, all with this job's BatchKey()) on the
  // GPU; one status per job, in order. Only called with batches of two or
  // more.
  virtual std::vector<absl::Status> RunGpuBatch(int worker, std::span<Job* const> batch);
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
  int max_batch = 8;                                  // jobs per GPU submission
  absl::Duration batch_delay = absl::Microseconds(500);  // longest wait for more
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

  int queued() const;     // admitted, waiting for a slot
  int in_flight() const;  // being processed (any stage)
  int gpu_queued() const; // prepared, waiting for a GPU worker
  int64_t completed() const;  // jobs done so far (any outcome)
  const SchedulerOptions& options() const { return options_; }

 private:
  void StartLocked(Job* job) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Complete(Job* job, const absl::Status& status);
  void CpuLoop();
  void GpuLoop(int worker);
  // Moves the jobs of to_gpu_ with key `key` into `batch` (up to max_batch).
  void TakeSameKeyLocked(const std::string& key, std::vector<Job*>& batch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool HasKeyLocked(const std::string& key) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void AfterGpu(Job* job, const absl::Status& status);
  void RunPrepare(Job* job);
  void RunFinish(Job* job);
  static void Dequeued(Job* job);

  const SchedulerOptions options_;
  mutable absl::Mutex mu_;
  bool draining_ ABSL_GUARDED_BY(mu_) = false;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  int preparing_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t completed_ ABSL_GUARDED_BY(mu_) = 0;  // admitted, not yet at the GPU queue
  std::deque<Job*> waiting_ ABSL_GUARDED_BY(mu_);      // admitted, no slot yet
  std::deque<Job*> to_prepare_ ABSL_GUARDED_BY(mu_);   // CPU, before the GPU
  std::deque<Job*> to_finish_ ABSL_GUARDED_BY(mu_);    // CPU, after: served first
  std::deque<Job*> to_gpu_ ABSL_GUARDED_BY(mu_);
  std::vector<std::thread> threads_;
};

}  // namespace rgfx::service
