#include "tests/support/gpu_env.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "passes/builtin_passes.h"

namespace rgfx::testing {
namespace {

[[noreturn]] void Die(const absl::Status& status, const char* what) {
  std::fprintf(stderr,
               "FATAL: %s: %s\nGPU tests need a Vulkan device (lavapipe: apt-get install "
               "mesa-vulkan-drivers vulkan-validationlayers); they are never skipped.\n",
               what, std::string(status.message()).c_str());
  std::abort();
}

}  // namespace

GpuEnv& SharedGpu() {
  static GpuEnv* env = [] {
    auto* e = new GpuEnv();
    auto instance = gpu::Instance::Create({.validation = true, .print_messages = true});
    if (!instance.ok()) Die(instance.status(), "creating the Vulkan instance");
    e->instance = std::move(*instance);
    const char* override_spec = std::getenv("RGFX_TEST_DEVICE");
    auto device = gpu::Device::Create(*e->instance, {override_spec ? override_spec : ""});
    if (!device.ok()) Die(device.status(), "creating the Vulkan device");
    e->device = std::move(*device);
    std::fprintf(stderr, "[gpu] %s\n", e->device->Describe().c_str());
    auto pipelines = gpu::PipelineCache::Create(*e->device);
    if (!pipelines.ok()) Die(pipelines.status(), "creating the pipeline cache");
    e->pipelines = std::move(*pipelines);
    passes::RegisterBuiltinPasses(e->registry);
    auto executor = graph::Executor::Create(*e->device, *e->pipelines);
    if (!executor.ok()) Die(executor.status(), "creating the executor");
    e->executor = std::move(*executor);
    return e;
  }();
  return *env;
}

void GpuTest::SetUp() { SharedGpu().instance->validation_log().Take(); }

void GpuTest::TearDown() {
  for (const std::string& message : SharedGpu().instance->validation_log().Take()) {
    ADD_FAILURE() << message;
  }
}

absl::StatusOr<GraphRun> RunGraph(const graph::GraphDesc& desc, const std::vector<Bytes>& inputs,
                                  int repeats) {
  GpuEnv& env = SharedGpu();
  graph::CompileLimits limits;
  limits.max_pixels = 1ull << 30;
  auto compiled = graph::Compile(desc, env.registry, env.device->caps(), limits);
  if (!compiled.ok()) return compiled.status();
  GraphRun run;
  run.compiled = *compiled;
  run.outputs.resize(desc.outputs.size());
  auto fill = [&](int i, std::span<std::byte> dst) -> absl::Status {
    if (inputs.at(i).size() != dst.size()) {
      return absl::InvalidArgumentError("test input has the wrong size");
    }
    std::memcpy(dst.data(), inputs[i].data(), dst.size());
    return absl::OkStatus();
  };
  auto consume = [&](int i, std::span<const std::byte> src) -> absl::Status {
    run.outputs.at(i).assign(src.begin(), src.end());
    return absl::OkStatus();
  };
  auto timings = env.executor->Run(**compiled, fill, consume, absl::Seconds(120), repeats);
  if (!timings.ok()) return timings.status();
  run.timings = std::move(*timings);
  return run;
}

}  // namespace rgfx::testing
