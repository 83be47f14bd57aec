#include "graph/executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gpu/arena.h"
#include "gpu/command_context.h"
#include "gpu/pipeline_cache.h"
#include "gpu/vk_status.h"

namespace rgfx::graph {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void MemoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                   VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void ComputeToCompute(VkCommandBuffer cmd) {
  MemoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
}

}  // namespace

// Per-worker GPU state: reused by every run.
struct Executor::State {
  gpu::Device& device;
  gpu::PipelineCache& pipelines;
  std::unique_ptr<gpu::CommandContext> commands;
  gpu::Arena device_arena;
  gpu::Arena upload_arena;
  gpu::Arena readback_arena;
  gpu::Arena constants_arena;  // pass constants (weights), staged per run
  absl::Time last_used = absl::Now();

  State(gpu::Device& d, gpu::PipelineCache& p)
      : device(d),
        pipelines(p),
        device_arena(d, gpu::MemoryKind::kDevice),
        upload_arena(d, gpu::MemoryKind::kUpload, 16ull << 20),
        readback_arena(d, gpu::MemoryKind::kReadback, 16ull << 20),
        constants_arena(d, gpu::MemoryKind::kUpload, 1ull << 20) {}
};

namespace {

// The RecordContext a pass sees for one step.
class StepContext final : public RecordContext {
 public:
  StepContext(VkCommandBuffer cmd, gpu::PipelineCache& pipelines, const CompiledGraph& graph,
              const CompiledPass& pass, const std::vector<gpu::BufferSlice>& reads,
              const std::vector<gpu::BufferSlice>& writes,
              const std::vector<gpu::BufferSlice>& constants)
      : cmd_(cmd),
        pipelines_(pipelines),
        graph_(graph),
        pass_(pass),
        reads_(reads),
        writes_(writes),
        constants_(constants) {}

  const gpu::DeviceCaps& caps() const override { return graph_.caps; }
  PixelFormat working_format() const override { return graph_.desc.working_format; }
  const PassPlan& plan() const override { return pass_.plan; }
  const Params& params() const override { return pass_.params; }
  std::span<const Extent> input_extents() const override { return pass_.input_extents; }
  const gpu::BufferSlice& read(int i) const override { return reads_.at(i); }
  const gpu::BufferSlice& write(int i) const override { return writes_.at(i); }
  const gpu::BufferSlice& constants(int i) const override { return constants_.at(i); }

  absl::Status Dispatch(const gpu::ShaderCode& shader, const gpu::SpecConstants& spec,
                        std::span<const gpu::BufferSlice> buffers,
                        std::span<const std::byte> push, uint32_t gx, uint32_t gy,
                        uint32_t gz) override {
    // The dispatch site checks that C++ and the shader agree on the interface.
    if (buffers.size() != shader.num_buffers || push.size() != shader.push_constant_bytes) {
      return absl::InternalError(absl::StrCat(
          "pass '", pass_.name, "': shader ", std::string(shader.name), " expects ", shader.num_buffers,
          " buffers and ", shader.push_constant_bytes, " push bytes, got ", buffers.size(),
          " and ", push.size()));
    }
    const auto& caps = graph_.caps;
    if (gx > caps.max_workgroup_count[0] || gy > caps.max_workgroup_count[1] ||
        gz > caps.max_workgroup_count[2]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", pass_.name, "': dispatch of ", gx, "x", gy, "x", gz,
          " workgroups exceeds the device's maxComputeWorkGroupCount"));
    }
    auto pipeline = pipelines_.Get(shader, spec);
    if (!pipeline.ok()) return pipeline.status();
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, (*pipeline)->pipeline);
    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
      infos[i] = {buffers[i].buffer, buffers[i].offset, buffers[i].size};
      writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      writes[i].dstBinding = static_cast<uint32_t>(i);
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    if (!writes.empty()) {
      vkCmdPushDescriptorSetKHR(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, (*pipeline)->layout, 0,
                                static_cast<uint32_t>(writes.size()), writes.data());
    }
    if (!push.empty()) {
      vkCmdPushConstants(cmd_, (*pipeline)->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                         static_cast<uint32_t>(push.size()), push.data());
    }
    if (gx > 0 && gy > 0 && gz > 0) vkCmdDispatch(cmd_, gx, gy, gz);
    return absl::OkStatus();
  }

  void ComputeBarrier() override { ComputeToCompute(cmd_); }

 private:
  VkCommandBuffer cmd_;
  gpu::PipelineCache& pipelines_;
  const CompiledGraph& graph_;
  const CompiledPass& pass_;
  const std::vector<gpu::BufferSlice>& reads_;
  const std::vector<gpu::BufferSlice>& writes_;
  const std::vector<gpu::BufferSlice>& constants_;
};

std::span<std::byte> Bytes(const gpu::BufferSlice& slice) {
  return {slice.mapped, static_cast<size_t>(slice.size)};
}

}  // namespace

Executor::Executor(std::unique_ptr<State> state) : state_(std::move(state)) {}
Executor::~Executor() = default;

uint64_t Executor::vulkan_allocations() const {
  return state_->device_arena.allocations() + state_->upload_arena.allocations() +
         state_->readback_arena.allocations() + state_->constants_arena.allocations();
}

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(gpu::Device& device,
                                                           gpu::PipelineCache& pipelines) {
  auto state = std::make_unique<State>(device, pipelines);
  RGFX_ASSIGN_OR_RETURN(state->commands, gpu::CommandContext::Create(device));
  return std::unique_ptr<Executor>(new Executor(std::move(state)));
}

absl::StatusOr<RunResult> Executor::Run(const CompiledGraph& graph, const FillInputFn& fill,
                                        const ConsumeOutputFn& consume, absl::Duration timeout,
                                        int repeats) {
  // Staging from the executor's own arenas (callers without per-request
  // staging: tests, benchmarks, warm-up, report_error's reference runs).
  State& s = *state_;
  s.upload_arena.Reset();
  s.readback_arena.Reset();
  StagedRun staged;
  staged.inputs.resize(graph.imported.size());
  const int64_t upload_start = NowNs();
  for (size_t i = 0; i < graph.imported.size(); ++i) {
    const int r = graph.imported[i];
    if (r < 0) continue;  // an input nothing reads
    RGFX_ASSIGN_OR_RETURN(staged.inputs[i], s.upload_arena.Allocate(graph.resources[r].bytes));
    RGFX_RETURN_IF_ERROR(fill(static_cast<int>(i), Bytes(staged.inputs[i])));
  }
  const int64_t upload_ns = NowNs() - upload_start;
  for (int r : graph.exported) {
    RGFX_ASSIGN_OR_RETURN(gpu::BufferSlice out, s.readback_arena.Allocate(graph.resources[r].bytes));
    staged.outputs.push_back(out);
  }
  RGFX_ASSIGN_OR_RETURN(std::vector<RunResult> results,
                        RunStaged(graph, std::span<const StagedRun>(&staged, 1), timeout, repeats));
  RunResult result = std::move(results.front());
  result.upload_ns = upload_ns;
  const int64_t download_start = NowNs();
  for (size_t i = 0; i < staged.outputs.size(); ++i) {
    RGFX_RETURN_IF_ERROR(consume(static_cast<int>(i), Bytes(staged.outputs[i])));
  }
  result.download_ns = NowNs() - download_start;
  return result;
}

absl::Status Executor::CheckStaged(const CompiledGraph& graph, const StagedRun& run) const {
  if (run.inputs.size() != graph.imported.size() || run.outputs.size() != graph.exported.size()) {
    return absl::InternalError(absl::StrCat("staged run has ", run.inputs.size(), " inputs and ",
                                            run.outputs.size(), " outputs; the graph ",
                                            graph.imported.size(), " and ", graph.exported.size()));
  }
  for (size_t i = 0; i < graph.imported.size(); ++i) {
    const int r = graph.imported[i];
    if (r >= 0 && run.inputs[i].size != graph.resources[r].bytes) {
      return absl::InternalError(absl::StrCat("staged input ", i, ": ", run.inputs[i].size,
                                              " bytes, the graph imports ",
                                              graph.resources[r].bytes));
    }
  }
  for (size_t i = 0; i < graph.exported.size(); ++i) {
    if (run.outputs[i].size != graph.resources[graph.exported[i]].bytes) {
      return absl::InternalError(absl::StrCat("staged output ", i, ": ", run.outputs[i].size,
                                              " bytes, the graph exports ",
                                              graph.resources[graph.exported[i]].bytes));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<RunResult>> Executor::RunStaged(const CompiledGraph& graph,
                                                           std::span<const StagedRun> runs,
                                                           absl::Duration timeout, int repeats) {
  State& s = *state_;
  repeats = std::max(repeats, 1);
  if (runs.empty()) return std::vector<RunResult>{};
  for (const StagedRun& run : runs) RGFX_RETURN_IF_ERROR(CheckStaged(graph, run));
  s.device_arena.Reset();
  s.constants_arena.Reset();
  s.last_used = absl::Now();

  // Memory: one device slice per physical buffer, shared by every request
  // of the batch (they run one after the other); pass constants uploaded
  // once.
  std::vector<gpu::BufferSlice> physical(graph.buffers.size());
  for (size_t i = 0; i < graph.buffers.size(); ++i) {
    RGFX_ASSIGN_OR_RETURN(physical[i], s.device_arena.Allocate(graph.buffers[i].bytes));
  }
  auto slice_of = [&](int resource) -> gpu::BufferSlice {
    gpu::BufferSlice slice = physical[graph.resources[resource].physical];
    slice.size = graph.resources[resource].bytes;  // bind only what the resource uses
    return slice;
  };
  struct Copy {
    gpu::BufferSlice src, dst;
  };
  std::vector<Copy> constant_uploads;
  std::vector<std::vector<gpu::BufferSlice>> constants(graph.passes.size());
  for (size_t p = 0; p < graph.passes.size(); ++p) {
    for (const auto& blob : graph.passes[p].plan.constants) {
      RGFX_ASSIGN_OR_RETURN(gpu::BufferSlice staging, s.constants_arena.Allocate(blob.size()));
      RGFX_ASSIGN_OR_RETURN(gpu::BufferSlice dst, s.device_arena.Allocate(blob.size()));
      std::memcpy(staging.mapped, blob.data(), blob.size());
      constant_uploads.push_back({staging, dst});
      constants[p].push_back(dst);
    }
  }
  auto copy = [](VkCommandBuffer cmd, const Copy& c) {
    VkBufferCopy region{c.src.offset, c.dst.offset, c.src.size};
    vkCmdCopyBuffer(cmd, c.src.buffer, c.dst.buffer, 1, &region);
  };

  // Record. Per request: uploads, every step with two timestamps (the whole
  // graph `repeats` times), downloads.
  const int64_t submit_start = NowNs();
  const size_t num_steps = graph.steps.size();
  const uint32_t per_run = static_cast<uint32_t>(2 * num_steps * repeats);
  const uint32_t num_timestamps = per_run * static_cast<uint32_t>(runs.size());
  RGFX_ASSIGN_OR_RETURN(VkCommandBuffer cmd, s.commands->Begin(num_timestamps));
  // Waits for every earlier submission to the queue (submission order spans
  // command buffers): another worker's requests never run beside ours, so a
  // pass's timestamps measure that pass alone, also under load.
  MemoryBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0);
  for (const Copy& c : constant_uploads) copy(cmd, c);
  for (size_t run = 0; run < runs.size(); ++run) {
    // No extra barrier between requests: the last request's downloads come
    // after a compute-to-transfer barrier and this request's passes after a
    // transfer-to-compute one, which chain every hazard of reusing the
    // buffers (synchronization validation agrees: tests/e2e/batching_test).
    for (size_t i = 0; i < graph.imported.size(); ++i) {
      if (graph.imported[i] >= 0) copy(cmd, {runs[run].inputs[i], slice_of(graph.imported[i])});
    }
    MemoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    for (int rep = 0; rep < repeats; ++rep) {
      // A repetition overwrites what the previous one wrote and read.
      if (rep > 0) ComputeToCompute(cmd);
      for (size_t i = 0; i < num_steps; ++i) {
        const CompiledStep& step = graph.steps[i];
        const CompiledPass& pass = graph.passes[step.pass];
        if (step.barrier_before) ComputeToCompute(cmd);
        std::vector<gpu::BufferSlice> reads, writes;
        for (int r : step.reads) reads.push_back(slice_of(r));
        for (int r : step.writes) writes.push_back(slice_of(r));
        // Both timestamps wait for all earlier work (bottom of pipe), so a
        // step's interval is its own execution, serialised by the barriers.
        const uint32_t slot =
            static_cast<uint32_t>(run * per_run + 2 * (rep * num_steps + i));
        s.commands->WriteTimestamp(slot, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        StepContext ctx(cmd, s.pipelines, graph, pass, reads, writes, constants[step.pass]);
        RGFX_RETURN_IF_ERROR(pass.impl->Record(ctx, step.step));
        s.commands->WriteTimestamp(slot + 1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
      }
    }
    MemoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    for (size_t i = 0; i < graph.exported.size(); ++i) {
      copy(cmd, {slice_of(graph.exported[i]), runs[run].outputs[i]});
    }
  }
  MemoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  RGFX_RETURN_IF_ERROR(s.commands->SubmitAndWait(timeout));
  const int64_t submit_ns = NowNs() - submit_start;

  // Timings per request, step and pass (a pass's steps are contiguous), each
  // the median over the repetitions.
  RGFX_ASSIGN_OR_RETURN(std::vector<uint64_t> ts, s.commands->ReadTimestamps(num_timestamps));
  std::vector<RunResult> results(runs.size());
  for (size_t run = 0; run < runs.size(); ++run) {
    RunResult& result = results[run];
    result.repeats = repeats;
    result.submit_ns = submit_ns;
    result.batch_requests = static_cast<int>(runs.size());
    // Median over repetitions of the interval from step `first`'s start to
    // step `last`'s end.
    auto interval = [&](size_t first, size_t last) -> std::optional<uint64_t> {
      if (ts.empty()) return std::nullopt;
      std::vector<uint64_t> per_rep;
      for (int rep = 0; rep < repeats; ++rep) {
        const size_t base = run * per_run + 2 * rep * num_steps;
        const size_t begin = base + 2 * first;
        const size_t end = base + 2 * last + 1;
        per_rep.push_back(ts[end] >= ts[begin] ? ts[end] - ts[begin] : 0);
      }
      std::nth_element(per_rep.begin(), per_rep.begin() + per_rep.size() / 2, per_rep.end());
      return per_rep[per_rep.size() / 2];
    };
    for (const CompiledPass& pass : graph.passes) {
      if (pass.num_steps == 0) continue;
      PassTiming timing{pass.name, pass.type, pass.plan.variant, pass.internal, {}, {}};
      const size_t first = static_cast<size_t>(pass.first_step);
      const size_t last = first + pass.num_steps - 1;
      timing.gpu_ns = interval(first, last);
      for (size_t i = first; i <= last; ++i) {
        timing.steps.push_back({pass.plan.steps[graph.steps[i].step].label, interval(i, i)});
      }
      result.passes.push_back(std::move(timing));
    }
    if (num_steps > 0) result.gpu_ns = interval(0, num_steps - 1);
  }
  return results;
}

uint64_t Executor::device_bytes() const { return state_->device_arena.capacity(); }

void Executor::TrimIdle(absl::Duration idle) {
  State& s = *state_;
  if (absl::Now() - s.last_used < idle) return;
  s.device_arena.ReleaseAll();
  s.constants_arena.ReleaseAll();
  s.upload_arena.ReleaseAll();
  s.readback_arena.ReleaseAll();
}

}  // namespace rgfx::graph
