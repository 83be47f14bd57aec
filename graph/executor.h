// Runs compiled graphs on a device. An Executor is one worker's GPU context:
// a command buffer, a fence, a timestamp pool and its own transient memory
// (arenas reused across runs, so the hot path allocates no Vulkan memory).
// One thread uses an Executor at a time; a server holds several.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "gpu/buffer_slice.h"
#include "graph/compiled_graph.h"

namespace rgfx::gpu {
class Device;
class PipelineCache;
}  // namespace rgfx::gpu

namespace rgfx::graph {

struct StepTiming {
  std::string label;
  std::optional<uint64_t> gpu_ns;  // absent when the device has no timestamps
};

struct PassTiming {
  std::string pass;     // pass name ("import:photo" for internal ones)
  std::string type;
  std::string variant;  // resolved variant, "" for passes without variants
  bool internal = false;
  std::optional<uint64_t> gpu_ns;
  std::vector<StepTiming> steps;
};

struct RunResult {
  // With repeats > 1 every GPU time below is the median over the repetitions.
  int repeats = 1;
  std::vector<PassTiming> passes;  // execution order; culled passes absent
  std::optional<uint64_t> gpu_ns;  // first to last timestamp of the graph
  int64_t upload_ns = 0;    // host time: filling staging memory
  int64_t submit_ns = 0;    // host time: record, submit, wait for the fence
  int64_t download_ns = 0;  // host time: handing the outputs to the consumer
  int batch_requests = 1;   // requests that shared the submission
};

// One request of a batch whose pixels already sit in host-visible staging
// memory the request owns (DESIGN.md §9: decoded straight into the memory
// the upload reads from). `inputs[i]` is input i (desc.inputs order) in its
// client format, exactly the imported resource's bytes (ignored for an input
// nothing reads); `outputs[i]` receives output i (desc.outputs order).
struct StagedRun {
  std::vector<gpu::BufferSlice> inputs;
  std::vector<gpu::BufferSlice> outputs;
};

// Writes input `index` (desc.inputs order) in its client format, tightly
// packed rows, into `dst` (exactly width*height*bytes-per-pixel bytes).
using FillInputFn = std::function<absl::Status(int index, std::span<std::byte> dst)>;
// Receives output `index` (desc.outputs order) in its requested format.
using ConsumeOutputFn = std::function<absl::Status(int index, std::span<const std::byte> src)>;

class Executor {
 public:
  static absl::StatusOr<std::unique_ptr<Executor>> Create(gpu::Device& device,
                                                          gpu::PipelineCache& pipelines);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Uploads, records every step with its barriers and timestamps, submits,
  // waits and downloads. Past `timeout` the run fails with DeadlineExceeded,
  // but only once the GPU is done with its memory (it is never reused under
  // a running submission). A lost device comes back as a
  // status gpu::IsDeviceLost() recognises; out of memory as ResourceExhausted.
  //
  // `repeats` > 1 records the whole graph that many times back to back in the
  // same submission (a barrier between repetitions) and reports median times:
  // the GPU stays busy, so its clocks are those of sustained work rather than
  // of a GPU that idled while the host prepared the request. Outputs are
  // those of the last repetition (identical to the first).
  absl::StatusOr<RunResult> Run(const CompiledGraph& graph, const FillInputFn& fill,
                                const ConsumeOutputFn& consume,
                                absl::Duration timeout = absl::Seconds(60), int repeats = 1);

  // Runs every request of `runs` in one submission: the graph's transient
  // memory is shared and reused request after request, with a barrier
  // between them, so each request's passes run alone on the GPU and its
  // timestamps are its own. Results are in `runs` order. `repeats` and
  // `timeout` as in Run.
  absl::StatusOr<std::vector<RunResult>> RunStaged(const CompiledGraph& graph,
                                                   std::span<const StagedRun> runs,
                                                   absl::Duration timeout = absl::Seconds(60),
                                                   int repeats = 1);

  // Vulkan memory allocations made so far by this executor's arenas: stays
  // constant once a worker has run its largest graph.
  uint64_t vulkan_allocations() const;
  // Bytes of device-local transient memory this executor holds.
  uint64_t device_bytes() const;
  // Gives back the transient memory (device and the executor's own staging)
  // if no run has used it for `idle`; the next run allocates it again.
  void TrimIdle(absl::Duration idle);

 private:
  struct State;
  absl::Status CheckStaged(const CompiledGraph& graph, const StagedRun& run) const;
  explicit Executor(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace rgfx::graph
