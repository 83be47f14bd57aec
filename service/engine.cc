#include "service/engine.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "graph/compile.h"
#include "gpu/vk_status.h"
#include "passes/builtin_passes.h"
#include "service/log.h"

namespace rgfx::service {

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
  return engine;
}

absl::Status Engine::CreateDevice() {
  RGFX_ASSIGN_OR_RETURN(device_, gpu::Device::Create(*instance_, {.override_spec = options_.device}));
  RGFX_ASSIGN_OR_RETURN(pipelines_, gpu::PipelineCache::Create(*device_, options_.pipeline_cache_file));
  executors_.clear();
  for (int i = 0; i < options_.workers; ++i) {
    RGFX_ASSIGN_OR_RETURN(std::unique_ptr<graph::Executor> executor,
                          graph::Executor::Create(*device_, *pipelines_));
    executors_.push_back(std::move(executor));
  }
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
  if (pipelines_ != nullptr && !options_.pipeline_cache_file.empty()) {
    if (absl::Status s = pipelines_->Save(); !s.ok()) {
      ServerLog().Error("saving the pipeline cache failed", {Field("error", s.ToString())});
    }
  }
  // Executors and pipelines before the device, the device before the instance.
  executors_.clear();
  pipelines_.reset();
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
  if (lost_.load()) {
    return absl::UnavailableError("the GPU is being recovered after a device loss; retry");
  }
  // Outside device_mu_: a hook that holds a run must not hold off recovery.
  absl::Status injected =
      options_.test_hooks.before_run ? options_.test_hooks.before_run(worker) : absl::OkStatus();
  absl::StatusOr<graph::RunResult> result;
  if (!injected.ok()) {
    result = std::move(injected);
  } else {
    absl::ReaderMutexLock lock(&device_mu_);
    if (executors_.empty()) return absl::UnavailableError("no GPU device");
    result = executors_[worker]->Run(graph, fill, consume, absl::Seconds(60), repeats);
  }
  if (!result.ok() && gpu::IsDeviceLost(result.status())) {
    if (!lost_.exchange(true)) {
      ServerLog().Error("GPU device lost; recreating it", {Field("error", result.status().ToString())});
      if (health_listener_) health_listener_(false);
      Recover();
    }
    return absl::UnavailableError(absl::StrCat("the GPU device was lost while running: ",
                                               result.status().message()));
  }
  return result;
}

void Engine::Recover() {
  if (options_.test_hooks.before_recover) options_.test_hooks.before_recover();
  absl::MutexLock lock(&device_mu_);  // waits for every run in flight
  executors_.clear();
  pipelines_.reset();
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
