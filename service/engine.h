// The GPU side of the server behind one seam: the Vulkan instance and device,
// the pipeline cache, the pass registry, the compiled-graph cache and one
// Executor per GPU worker. The service talks to the GPU only through this
// class, so it can be tested alone (tests/service/engine_test.cc).
//
// A lost device (DESIGN.md §8): the run that sees it fails with UNAVAILABLE,
// later runs fail with UNAVAILABLE at once, and the first worker to notice
// rebuilds device, pipelines and executors once every run in flight has
// returned; healthy() is false until then.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gpu/caps.h"
#include "gpu/device.h"
#include "gpu/instance.h"
#include "gpu/pipeline_cache.h"
#include "gpu/staging_pool.h"
#include "graph/compile_cache.h"
#include "graph/executor.h"
#include "graph/registry.h"
#include "service/memory_budget.h"

namespace rgfx::service {

// Test-only fault injection: a device cannot be made to lose itself on
// demand, so without these the recovery path of DESIGN.md §8 would go
// untested. main.cc never sets them; unset, they cost one branch per run.
struct EngineTestHooks {
  // Called on the worker's thread at the start of every Engine::Run (not the
  // warm-up). A non-OK status is taken as that run's result, e.g.
  // gpu::MarkDeviceLost(...) to simulate a loss; it may also block to hold a
  // run in flight.
  std::function<absl::Status(int worker)> before_run;
  // Called on the thread that saw a loss after health turned false and
  // before the device is recreated; may block so a test can observe
  // NOT_SERVING (recovery on lavapipe is too quick to catch otherwise).
  std::function<void()> before_recover;
  // Called before a request's staging memory is taken: a non-OK status is
  // taken as the allocation's result (e.g. VK_ERROR_OUT_OF_DEVICE_MEMORY);
  // it may also throw std::bad_alloc, as a failing host allocation would.
  std::function<absl::Status(uint64_t bytes)> before_staging;
};

struct EngineOptions {
  bool validation = false;
  std::string device;               // --device: "" = automatic
  bool matrix_units = true;         // --matrix_units (gpu::DeviceOptions)
  std::string pipeline_cache_file;  // "" = none
  int workers = 2;                  // executors, one per GPU worker thread
  // Staging and transient memory unused this long is given back by a
  // background thread (zero: kept for the process's life).
  absl::Duration memory_idle_release = absl::ZeroDuration();
  // Admission budgets in bytes (service/memory_budget.h); 0 = derived from
  // the machine and the device.
  uint64_t host_memory_budget = 0;
  uint64_t gpu_memory_budget = 0;
  graph::CompileLimits limits;
  EngineTestHooks test_hooks;
};

class Engine {
 public:
  static absl::StatusOr<std::unique_ptr<Engine>> Create(const EngineOptions& options);
  ~Engine();  // saves the pipeline cache file

  const gpu::DeviceCaps& caps() const { return caps_; }
  MemoryBudget& memory_budget() { return *budget_; }
  const MemoryBudget& memory_budget() const { return *budget_; }
  const graph::PassRegistry& registry() const { return registry_; }
  const EngineOptions& options() const { return options_; }
  int workers() const { return options_.workers; }
  bool validation_enabled() const { return validation_enabled_; }
  bool healthy() const { return !lost_.load(); }
  std::string Describe() const;

  // Thread-safe: compiles or returns the cached compiled graph.
  absl::StatusOr<std::shared_ptr<const graph::CompiledGraph>> Compile(const graph::GraphDesc& desc,
                                                                      bool* cache_hit);

  // Runs `graph` on worker `worker`'s executor (0 <= worker < workers(); one
  // thread per worker at a time).
  // `repeats`: see graph::Executor::Run.
  absl::StatusOr<graph::RunResult> Run(int worker, const graph::CompiledGraph& graph,
                                       const graph::FillInputFn& fill,
                                       const graph::ConsumeOutputFn& consume,
                                       int repeats = 1);

  // Runs a batch of requests whose pixels already sit in their own staging
  // leases (graph::Executor::RunStaged) in one submission on `worker`.
  absl::StatusOr<std::vector<graph::RunResult>> RunStaged(int worker,
                                                          const graph::CompiledGraph& graph,
                                                          std::span<const graph::StagedRun> runs,
                                                          int repeats = 1);

  // Host-visible memory owned by one request in flight: inputs are decoded
  // straight into an upload lease, outputs downloaded into a readback lease
  // and encoded from there. Unavailable while the device is being recovered.
  absl::StatusOr<gpu::StagingLease> AcquireUpload(uint64_t bytes);
  absl::StatusOr<gpu::StagingLease> AcquireReadback(uint64_t bytes);

  struct MemoryStats {
    uint64_t device_bytes = 0;    // transient device-local memory of all workers
    uint64_t staging_bytes = 0;   // host-visible staging, leased and free
    uint64_t staging_leased_bytes = 0;
  };
  MemoryStats memory_stats();
  // Gives back memory nobody used for `idle`: free staging buffers and the
  // transient memory of idle workers (--memory_idle_release_s).
  void TrimIdleMemory(absl::Duration idle);

  // Validation messages since the last call (tests fail on any).
  std::vector<std::string> TakeValidationMessages();

  // Called (from a worker thread) after every GPU submission that served
  // requests, with how many it served (batching: more than one) and the
  // GPU time they took from timestamps (nullopt where the device has none,
  // or the submission failed).
  using SubmissionListener =
      std::function<void(int requests, std::optional<double> gpu_seconds)>;
  void set_submission_listener(SubmissionListener listener) {
    submission_listener_ = std::move(listener);
  }

  // Called (from a worker thread) when health changes.
  void set_health_listener(std::function<void(bool healthy)> listener) {
    health_listener_ = std::move(listener);
  }

 private:
  explicit Engine(const EngineOptions& options);
  absl::Status CreateDevice();  // device, pipelines, executors, then WarmUp()
  absl::Status WarmUp();
  void Recover();
  // Runs `run` on worker `worker`'s executor unless the device is lost, and
  // turns a device loss into recovery and UNAVAILABLE.
  absl::Status OnExecutor(int worker, absl::FunctionRef<absl::Status(graph::Executor&)> run);
  // A device loss starts recovery; returns the status a run should report.
  absl::Status HandleRunFailure(const absl::Status& status);
  absl::StatusOr<gpu::StagingLease> AcquireStaging(
      const std::shared_ptr<gpu::StagingPool>& pool, uint64_t bytes);

  const EngineOptions options_;
  std::unique_ptr<gpu::Instance> instance_;
  graph::PassRegistry registry_;
  gpu::DeviceCaps caps_;
  bool validation_enabled_ = false;
  std::unique_ptr<graph::CompileCache> cache_;
  std::unique_ptr<MemoryBudget> budget_;

  // Runs hold it shared; recovery holds it exclusively.
  absl::Mutex device_mu_;
  // Shared with the staging pools: a lease taken before a device loss keeps
  // the old device alive until its request is done.
  std::shared_ptr<gpu::Device> device_;
  std::unique_ptr<gpu::PipelineCache> pipelines_;
  std::vector<std::unique_ptr<graph::Executor>> executors_;
  // One lock per executor: TrimIdleMemory must not free memory under a run.
  std::vector<std::unique_ptr<absl::Mutex>> executor_mu_;
  std::shared_ptr<gpu::StagingPool> upload_pool_;
  std::shared_ptr<gpu::StagingPool> readback_pool_;
  std::atomic<bool> lost_{false};
  // Gives idle memory back every so often (memory_idle_release).
  absl::Notification stop_trimming_;
  std::thread trimmer_;
  std::function<void(bool)> health_listener_;
  SubmissionListener submission_listener_;
};

}  // namespace rgfx::service
