// The GPU every GPU test shares: one instance with validation and
// synchronization validation on, the default device (lavapipe here and in
// CI; RGFX_TEST_DEVICE overrides), one pipeline cache and the built-in pass
// registry. GpuTest fails any test during which a validation message arrived.
// There is no skipping: without a Vulkan device the tests fail and say why.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "absl/status/statusor.h"
#include "gpu/device.h"
#include "gpu/instance.h"
#include "gpu/pipeline_cache.h"
#include "graph/compile.h"
#include "graph/executor.h"
#include "graph/registry.h"

namespace rgfx::testing {

struct GpuEnv {
  std::unique_ptr<gpu::Instance> instance;
  std::unique_ptr<gpu::Device> device;
  std::unique_ptr<gpu::PipelineCache> pipelines;
  graph::PassRegistry registry;
  std::unique_ptr<graph::Executor> executor;
};

// Created on first use; aborts the test binary with the reason if no device.
GpuEnv& SharedGpu();

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;  // fails the test on any validation message
};

using Bytes = std::vector<std::byte>;

struct GraphRun {
  std::vector<Bytes> outputs;  // desc.outputs order, client format
  graph::RunResult timings;
  std::shared_ptr<const graph::CompiledGraph> compiled;
};

// Compiles `desc` for the shared device and runs it on `inputs` (client
// format, desc.inputs order), `repeats` times in one submission.
absl::StatusOr<GraphRun> RunGraph(const graph::GraphDesc& desc, const std::vector<Bytes>& inputs,
                                  int repeats = 1);

}  // namespace rgfx::testing
