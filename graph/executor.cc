#include "graph/executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "absl/strings/str_cat.h"
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

  State(gpu::Device& d, gpu::PipelineCache& p)
      : device(d),
        pipelines(p),
        device_arena(d, gpu::MemoryKind::kDevice),
        upload_arena(d, gpu::MemoryKind::kUpload, 16ull << 20),
        readback_arena(d, gpu::MemoryKind::kReadback, 16ull << 20) {}
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
         state_->readback_arena.allocations();
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
  State& s = *state_;
  repeats = std::max(repeats, 1);
  s.device_arena.Reset();
  s.upload_arena.Reset();
  s.readback_arena.Reset();
  RunResult result;
  result.repeats = repeats;

  // Memory: one device slice per physical buffer; staging for imports,
  // exports and pass constants.
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
  std::vector<Copy> uploads;
  std::vector<std::vector<gpu::BufferSlice>> constants(graph.passes.size());
  for (size_t p = 0; p < graph.passes.size(); ++p) {
    for (const auto& blob : graph.passes[p].plan.constants) {
      RGFX_ASSIGN_OR_RETURN(gpu::BufferSlice staging, s.upload_arena.Allocate(blob.size()));
      RGFX_ASSIGN_OR_RETURN(gpu::BufferSlice dst, s.device_arena.Allocate(blob.size()));
      std::memcpy(staging.mapped, blob.data(), blob.size());
      uploads.push_back({staging, dst});
      constants[p].push_back(dst);
    }
  }
  const int64_t upload_start = NowNs();
  for (size_t i = 0; i < graph.imported.size(); ++i) {
    const int r = graph.imported[i];
    if (r < 0) continue;  // an input nothing reads
    RGFX_ASSIGN_OR_RETURN(gpu::BufferSlice staging,
                          s.upload_arena.Allocate(graph.resources[r].bytes));
    RGFX_RETURN_IF_ERROR(fill(static_cast<int>(i), Bytes(staging)));
    uploads.push_back({staging, slice_of(r)});
  }
  result.upload_ns = NowNs() - upload_start;
  std::vector<Copy> downloads;
  for (int r : graph.exported) {
    RGFX_ASSIGN_OR_RETURN(gpu::BufferSlice staging,
                          s.readback_arena.Allocate(graph.resources[r].bytes));
    downloads.push_back({slice_of(r), staging});
  }

  // Record: uploads, then every step with its barrier and two timestamps
  // (the whole graph `repeats` times), then downloads.
  const int64_t submit_start = NowNs();
  const size_t num_steps = graph.steps.size();
  const uint32_t num_timestamps = static_cast<uint32_t>(2 * num_steps * repeats);
  RGFX_ASSIGN_OR_RETURN(VkCommandBuffer cmd, s.commands->Begin(num_timestamps));
  for (const Copy& c : uploads) {
    VkBufferCopy region{c.src.offset, c.dst.offset, c.src.size};
    vkCmdCopyBuffer(cmd, c.src.buffer, c.dst.buffer, 1, &region);
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
      const uint32_t slot = static_cast<uint32_t>(2 * (rep * num_steps + i));
      s.commands->WriteTimestamp(slot, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
      StepContext ctx(cmd, s.pipelines, graph, pass, reads, writes, constants[step.pass]);
      RGFX_RETURN_IF_ERROR(pass.impl->Record(ctx, step.step));
      s.commands->WriteTimestamp(slot + 1, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
    }
  }
  MemoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
  for (const Copy& c : downloads) {
    VkBufferCopy region{c.src.offset, c.dst.offset, c.src.size};
    vkCmdCopyBuffer(cmd, c.src.buffer, c.dst.buffer, 1, &region);
  }
  MemoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
  RGFX_RETURN_IF_ERROR(s.commands->SubmitAndWait(timeout));
  result.submit_ns = NowNs() - submit_start;

  // Timings per step and per pass (a pass's steps are contiguous), each the
  // median over the repetitions.
  RGFX_ASSIGN_OR_RETURN(std::vector<uint64_t> ts, s.commands->ReadTimestamps(num_timestamps));
  // Median over repetitions of the interval from step `first`'s start to
  // step `last`'s end.
  auto interval = [&](size_t first, size_t last) -> std::optional<uint64_t> {
    if (ts.empty()) return std::nullopt;
    std::vector<uint64_t> per_rep;
    for (int rep = 0; rep < repeats; ++rep) {
      const size_t begin = 2 * (rep * num_steps + first);
      const size_t end = 2 * (rep * num_steps + last) + 1;
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

  const int64_t download_start = NowNs();
  for (size_t i = 0; i < downloads.size(); ++i) {
    RGFX_RETURN_IF_ERROR(consume(static_cast<int>(i), Bytes(downloads[i].dst)));
  }
  result.download_ns = NowNs() - download_start;
  return result;
}

}  // namespace rgfx::graph
