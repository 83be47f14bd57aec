#include "service/engine.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "graph/compile.h"
#include "gpu/vk_status.h"
#include "passes/builtin_passes.h"
#include "service/log.h"
#include "service/thread_name.h"

namespace rgfx::service {

namespace {

// A run's GPU time in seconds, every repetition counted (nullopt without
// timestamps).
std::optional<double> GpuSeconds(const graph::RunResult& run) {
  if (!run.gpu_ns) return std::nullopt;
  return static_cast<double>(*run.gpu_ns) * run.repeats / 1e9;
}

}  // namespace

Engine::Engine(const EngineOptions& options) : options_(options) {}

absl::StatusOr<std::unique_ptr<Engine>> Engine::Create(const EngineOptions& options) {
  if (options.workers < 1) return absl::InvalidArgumentError("workers must be >= 1");
  std::unique_ptr<Engine> engine(new Engine(options));
  RGFX_ASSIGN_OR_RETURN(engine->instance_, gpu::Instance::Create({.validation = options.validation}));
  engine->validation_enabled_ = engine->instance_->validation_enabled();
  passes::RegisterBuiltinPasses(engine->registry_);
  RGFX_RETURN_IF_ERROR(engine->CreateDevice());
  engine->caps_ = engine->device_->caps();
  engine->cache_ =
      std::make_unique<graph::CompileCache>(engine->registry_, engine->caps_, options.limits);
  engine->budget_ = std::make_unique<MemoryBudget>(
      options.host_memory_budget > 0 ? options.host_memory_budget : DefaultHostMemoryBudget(),
      options.gpu_memory_budget > 0 ? options.gpu_memory_budget
                                    : DefaultGpuMemoryBudget(engine->caps_.device_local_heap_bytes),
      options.workers);
  if (options.memory_idle_release > absl::ZeroDuration()) {
    Engine* self = engine.get();
    engine->trimmer_ = std::thread([self] {
      NameThisThread("rgfx-trim");
      const absl::Duration idle = self->options_.memory_idle_release;
      const absl::Duration period =
          std::clamp(idle / 4, absl::Milliseconds(50), absl::Seconds(10));
      while (!self->stop_trimming_.WaitForNotificationWithTimeout(period)) {
        self->TrimIdleMemory(idle);
      }
    });
  }
  return engine;
}

absl::Status Engine::CreateDevice() {
  RGFX_ASSIGN_OR_RETURN(device_, gpu::Device::Create(*instance_, {.override_spec = options_.device,
                                                                   .matrix_units = options_.matrix_units}));
  RGFX_ASSIGN_OR_RETURN(pipelines_, gpu::PipelineCache::Create(*device_, options_.pipeline_cache_file));
  executors_.clear();
  executor_mu_.clear();
  for (int i = 0; i < options_.workers; ++i) {
    RGFX_ASSIGN_OR_RETURN(std::unique_ptr<graph::Executor> executor,
                          graph::Executor::Create(*device_, *pipelines_));
    executors_.push_back(std::move(executor));
    executor_mu_.push_back(std::make_unique<absl::Mutex>());
  }
  upload_pool_ = gpu::StagingPool::Create(device_, gpu::MemoryKind::kUpload);
  readback_pool_ = gpu::StagingPool::Create(device_, gpu::MemoryKind::kReadback);
  return WarmUp();
}

absl::Status Engine::WarmUp() {
  // A 1x1 copy on every executor: proves the device works before the server
  // says it is serving, creates the import/export pipelines before the first
  // request, and leaves each executor's fence signalled (see the report on
  // gpu::CommandContext: an executor that never ran cannot be destroyed).
  graph::GraphDesc desc;
  desc.inputs.push_back({.name = "warmup", .extent = {1, 1}});
  desc.passes.push_back({.name = "warmup_copy", .type = "copy", .inputs = {"warmup"},
                         .outputs = {"warmup_out"}});
  desc.outputs.push_back({.name = "warmup_out"});
  RGFX_ASSIGN_OR_RETURN(std::shared_ptr<const graph::CompiledGraph> compiled,
                        graph::Compile(desc, registry_, device_->caps(), options_.limits));
  for (auto& executor : executors_) {
    const auto fill = [](int, std::span<std::byte> dst) {
      std::fill(dst.begin(), dst.end(), std::byte{0});
      return absl::OkStatus();
    };
    const auto consume = [](int, std::span<const std::byte>) { return absl::OkStatus(); };
    absl::StatusOr<graph::RunResult> run = executor->Run(*compiled, fill, consume);
    if (!run.ok()) {
      return absl::Status(run.status().code(),
                          absl::StrCat("warm-up run failed: ", run.status().message()));
    }
  }
  return absl::OkStatus();
}

Engine::~Engine() {
  stop_trimming_.Notify();
  if (trimmer_.joinable()) trimmer_.join();
  if (pipelines_ != nullptr && !options_.pipeline_cache_file.empty()) {
    if (absl::Status s = pipelines_->Save(); !s.ok()) {
      ServerLog().Error("saving the pipeline cache failed", {Field("error", s.ToString())});
    }
  }
  // Executors and pipelines before the device, the device before the instance.
  executors_.clear();
  pipelines_.reset();
  upload_pool_.reset();
  readback_pool_.reset();
  device_.reset();
}

std::string Engine::Describe() const {
  absl::MutexLock lock(&const_cast<Engine*>(this)->device_mu_);
  return device_ ? device_->Describe() : caps_.name;
}

absl::StatusOr<std::shared_ptr<const graph::CompiledGraph>> Engine::Compile(
    const graph::GraphDesc& desc, bool* cache_hit) {
  return cache_->GetOrCompile(desc, cache_hit);
}

absl::StatusOr<graph::RunResult> Engine::Run(int worker, const graph::CompiledGraph& graph,
                                             const graph::FillInputFn& fill,
                                             const graph::ConsumeOutputFn& consume,
                                             int repeats) {
  absl::StatusOr<graph::RunResult> result;
  RGFX_RETURN_IF_ERROR(OnExecutor(worker, [&](graph::Executor& executor) {
    result = executor.Run(graph, fill, consume, absl::Seconds(60), repeats);
    return result.status();
  }));
  if (submission_listener_) {
    submission_listener_(1, result.ok() ? GpuSeconds(*result) : std::nullopt);
  }
  return result;
}

absl::StatusOr<std::vector<graph::RunResult>> Engine::RunStaged(
    int worker, const graph::CompiledGraph& graph, std::span<const graph::StagedRun> runs,
    int repeats) {
  absl::StatusOr<std::vector<graph::RunResult>> result;
  RGFX_RETURN_IF_ERROR(OnExecutor(worker, [&](graph::Executor& executor) {
    result = executor.RunStaged(graph, runs, absl::Seconds(60), repeats);
    return result.status();
  }));
  if (submission_listener_) {
    // The runs of a batch are timed one after another in one submission.
    std::optional<double> seconds;
    if (result.ok()) {
      seconds = 0.0;
      for (const graph::RunResult& run : *result) {
        const std::optional<double> one = GpuSeconds(run);
        if (!one) {
          seconds.reset();
          break;
        }
        *seconds += *one;
      }
    }
    submission_listener_(static_cast<int>(runs.size()), seconds);
  }
  return result;
}

absl::Status Engine::OnExecutor(int worker,
                                absl::FunctionRef<absl::Status(graph::Executor&)> run) {
  if (lost_.load()) {
    return absl::UnavailableError("the GPU is being recovered after a device loss; retry");
  }
  // Outside device_mu_: a hook that holds a run must not hold off recovery.
  absl::Status status =
      options_.test_hooks.before_run ? options_.test_hooks.before_run(worker) : absl::OkStatus();
  if (status.ok()) {
    absl::ReaderMutexLock lock(&device_mu_);
    if (executors_.empty()) return absl::UnavailableError("no GPU device");
    absl::MutexLock executor_lock(executor_mu_[worker].get());
    status = run(*executors_[worker]);
  }
  return HandleRunFailure(status);
}

absl::Status Engine::HandleRunFailure(const absl::Status& status) {
  if (status.ok() || !gpu::IsDeviceLost(status)) return status;
  if (!lost_.exchange(true)) {
    ServerLog().Error("GPU device lost; recreating it", {Field("error", status.ToString())});
    if (health_listener_) health_listener_(false);
    Recover();
  }
  return absl::UnavailableError(
      absl::StrCat("the GPU device was lost while running: ", status.message()));
}

absl::StatusOr<gpu::StagingLease> Engine::AcquireUpload(uint64_t bytes) {
  return AcquireStaging(upload_pool_, bytes);
}

absl::StatusOr<gpu::StagingLease> Engine::AcquireReadback(uint64_t bytes) {
  return AcquireStaging(readback_pool_, bytes);
}

absl::StatusOr<gpu::StagingLease> Engine::AcquireStaging(
    const std::shared_ptr<gpu::StagingPool>& pool_ref, uint64_t bytes) {
  std::shared_ptr<gpu::StagingPool> pool;
  {
    absl::ReaderMutexLock lock(&device_mu_);
    pool = pool_ref;
  }
  if (lost_.load() || pool == nullptr) {
    return absl::UnavailableError("the GPU is being recovered after a device loss; retry");
  }
  if (options_.test_hooks.before_staging) {
    RGFX_RETURN_IF_ERROR(options_.test_hooks.before_staging(bytes));
  }
  return pool->Acquire(bytes);
}

Engine::MemoryStats Engine::memory_stats() {
  MemoryStats stats;
  absl::ReaderMutexLock lock(&device_mu_);
  for (size_t i = 0; i < executors_.size(); ++i) {
    absl::MutexLock executor_lock(executor_mu_[i].get());
    stats.device_bytes += executors_[i]->device_bytes();
  }
  for (const auto* pool : {upload_pool_.get(), readback_pool_.get()}) {
    if (pool == nullptr) continue;
    const gpu::StagingStats s = pool->stats();
    stats.staging_bytes += s.bytes_allocated;
    stats.staging_leased_bytes += s.bytes_leased;
  }
  return stats;
}

void Engine::TrimIdleMemory(absl::Duration idle) {
  absl::ReaderMutexLock lock(&device_mu_);
  for (size_t i = 0; i < executors_.size(); ++i) {
    // A worker busy with a run is not idle: skip it rather than wait.
    if (!executor_mu_[i]->TryLock()) continue;
    executors_[i]->TrimIdle(idle);
    executor_mu_[i]->Unlock();
  }
  if (upload_pool_ != nullptr) upload_pool_->Trim(idle);
  if (readback_pool_ != nullptr) readback_pool_->Trim(idle);
}

void Engine::Recover() {
  if (options_.test_hooks.before_recover) options_.test_hooks.before_recover();
  absl::MutexLock lock(&device_mu_);  // waits for every run in flight
  executors_.clear();
  pipelines_.reset();
  // Leases still held keep their pool and the old device alive until their
  // requests are done; new requests take leases from the new pools.
  upload_pool_.reset();
  readback_pool_.reset();
  device_.reset();
  if (absl::Status s = CreateDevice(); !s.ok()) {
    // Stays unhealthy: health reports NOT_SERVING and an orchestrator
    // restarts the process.
    ServerLog().Error("recreating the GPU device failed", {Field("error", s.ToString())});
    executors_.clear();
    return;
  }
  lost_.store(false);
  ServerLog().Info("GPU device recreated", {Field("device", device_->Describe())});
  if (health_listener_) health_listener_(true);
}

std::vector<std::string> Engine::TakeValidationMessages() {
  return instance_->validation_log().Take();
}

}  // namespace rgfx::service
