// Compile(): the steps of compile_steps.h in order. Validate, Order and Cull
// live in compile_validate.cc; planning, lifetimes, aliasing and barriers here.
#include "graph/compile.h"

#include <algorithm>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "graph/compile_steps.h"

namespace rgfx::graph::internal {
namespace {

std::string Dims(Extent extent) { return absl::StrCat(extent.width, "×", extent.height); }

// Adds a logical resource after checking it against the limits and the
// device: a buffer larger than maxStorageBufferRange cannot be bound.
absl::StatusOr<int> AddResource(CompiledGraph& graph, std::string name, ResourceKind kind,
                                Extent extent, PixelFormat format, const std::string& owner,
                                const gpu::DeviceCaps& caps, const CompileLimits& limits,
                                bool png_rows = false) {
  if (extent.width == 0 || extent.height == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(owner, ": resource '", name, "' would have zero size (", Dims(extent), ")"));
  }
  if (extent.pixels() > limits.max_pixels) {
    return absl::ResourceExhaustedError(
        absl::StrCat(owner, ": resource '", name, "' (", Dims(extent), " = ", extent.pixels(),
                     " pixels) exceeds the limit of ", limits.max_pixels, " pixels per image"));
  }
  const uint64_t bpp = BytesPerPixel(format);
  const bool overflows = extent.pixels() > std::numeric_limits<uint64_t>::max() / bpp;
  // The pixel limit keeps the PNG rows' arithmetic far from overflowing.
  const uint64_t bytes = overflows  ? std::numeric_limits<uint64_t>::max()
                         : png_rows ? PngRowsLayoutOf(extent).total_bytes
                                    : extent.pixels() * bpp;
  if (bytes > caps.max_storage_buffer_range) {
    return absl::ResourceExhaustedError(absl::StrCat(
        owner, ": resource '", name, "' (", Dims(extent), " ", std::string(PixelFormatName(format)),
        ", ", bytes, " bytes) exceeds the device's maxStorageBufferRange of ",
        caps.max_storage_buffer_range, " bytes"));
  }
  LogicalResource resource;
  resource.name = std::move(name);
  resource.kind = kind;
  resource.extent = extent;
  resource.format = format;
  resource.bytes = bytes;
  graph.resources.push_back(std::move(resource));
  return static_cast<int>(graph.resources.size() - 1);
}

// A plan that names buffers it does not have is a bug in the pass type.
absl::StatusOr<int> MapStepResource(const CompiledPass& pass, StepResource ref) {
  const std::vector<int>& list = ref.kind == StepResource::Kind::kInput    ? pass.inputs
                                 : ref.kind == StepResource::Kind::kOutput ? pass.outputs
                                                                           : pass.temps;
  if (ref.index < 0 || static_cast<size_t>(ref.index) >= list.size()) {
    return absl::InternalError(absl::StrCat("pass '", pass.name, "' (type '", pass.type,
                                            "'): a step refers to buffer ", ref.index, " of ",
                                            list.size()));
  }
  return list[ref.index];
}

absl::Status CheckPlanShape(const CompiledPass& pass, const PassPlan& plan, size_t outputs) {
  if (plan.output_extents.size() != outputs) {
    return absl::InternalError(absl::StrCat("pass '", pass.name, "' (type '", pass.type,
                                            "'): plan gives ", plan.output_extents.size(),
                                            " output sizes for ", outputs, " outputs"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<CompiledGraph> PlanPasses(const GraphDesc& desc, const ValidatedGraph& graph,
                                         const std::vector<int>& order,
                                         const std::vector<bool>& live, const gpu::DeviceCaps& caps,
                                         const CompileLimits& limits) {
  CompiledGraph out;
  out.imported.assign(desc.inputs.size(), -1);  // -1: an input nothing reads
  out.exported.assign(desc.outputs.size(), -1);
  std::map<std::string, int, std::less<>> resource_of;

  for (int index : order) {
    const PassNode& node = graph.nodes[index];
    if (!live[index]) continue;
    CompiledPass pass;
    pass.name = node.name;
    pass.type = std::string(node.impl->name());
    pass.impl = node.impl;
    pass.params = node.params;
    pass.internal = node.internal();
    const std::string owner = absl::StrCat("pass '", node.name, "'");

    if (node.role == PassNode::Role::kImport) {
      const InputDesc& input = desc.inputs[node.source];
      auto raw = AddResource(out, node.inputs[0], ResourceKind::kImported, input.extent,
                             input.format, owner, caps, limits);
      if (!raw.ok()) return raw.status();
      out.imported[node.source] = *raw;
      pass.inputs.push_back(*raw);
    } else {
      // Order() put every producer first; culling kept it alive.
      for (const std::string& input : node.inputs) pass.inputs.push_back(resource_of.at(input));
    }
    for (int r : pass.inputs) pass.input_extents.push_back(out.resources[r].extent);

    const PlanContext ctx{pass.name, pass.params, pass.input_extents, desc.working_format, caps};
    absl::StatusOr<PassPlan> plan = node.impl->Plan(ctx);
    if (!plan.ok()) return plan.status();
    pass.plan = *std::move(plan);
    if (absl::Status s = CheckPlanShape(pass, pass.plan, node.outputs.size()); !s.ok()) return s;

    for (size_t i = 0; i < node.outputs.size(); ++i) {
      const bool exported = node.role == PassNode::Role::kExport;
      const PixelFormat format = exported ? desc.outputs[node.source].format : desc.working_format;
      const bool png_rows = exported && desc.outputs[node.source].png_rows;
      auto r = AddResource(out, node.outputs[i],
                           exported ? ResourceKind::kExported : ResourceKind::kTransient,
                           pass.plan.output_extents[i], format, owner, caps, limits, png_rows);
      if (!r.ok()) return r.status();
      if (exported) out.exported[node.source] = *r;
      resource_of.emplace(node.outputs[i], *r);
      pass.outputs.push_back(*r);
    }
    for (size_t i = 0; i < pass.plan.temp_extents.size(); ++i) {
      auto r = AddResource(out, TempResourceName(node.name, static_cast<int>(i)),
                           ResourceKind::kTransient, pass.plan.temp_extents[i], desc.working_format,
                           owner, caps, limits);
      if (!r.ok()) return r.status();
      pass.temps.push_back(*r);
    }

    // The pass's steps, contiguous, with StepResources mapped to resources.
    pass.first_step = static_cast<int>(out.steps.size());
    pass.num_steps = static_cast<int>(pass.plan.steps.size());
    std::set<int> written;
    for (size_t s = 0; s < pass.plan.steps.size(); ++s) {
      CompiledStep step;
      step.pass = static_cast<int>(out.passes.size());
      step.step = static_cast<int>(s);
      for (StepResource ref : pass.plan.steps[s].reads) {
        auto r = MapStepResource(pass, ref);
        if (!r.ok()) return r.status();
        step.reads.push_back(*r);
      }
      for (StepResource ref : pass.plan.steps[s].writes) {
        auto r = MapStepResource(pass, ref);
        if (!r.ok()) return r.status();
        step.writes.push_back(*r);
        written.insert(*r);
      }
      out.steps.push_back(std::move(step));
    }
    for (int r : pass.outputs) {
      if (written.count(r) == 0) {
        return absl::InternalError(absl::StrCat("pass '", pass.name, "' (type '", pass.type,
                                                "'): no step writes output '",
                                                out.resources[r].name, "'"));
      }
    }
    out.passes.push_back(std::move(pass));
  }

  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if (!live[i] && graph.nodes[i].role == PassNode::Role::kClient) {
      out.culled.push_back(graph.nodes[i].name);  // nodes hold client passes in desc order
    }
  }
  return out;
}

void ComputeLifetimes(CompiledGraph& graph) {
  const int num_steps = static_cast<int>(graph.steps.size());
  std::vector<bool> written(graph.resources.size(), false);
  for (LogicalResource& r : graph.resources) {
    r.first_step = -1;
    r.last_step = -1;
  }
  for (int s = 0; s < num_steps; ++s) {
    for (int r : graph.steps[s].writes) {
      if (!written[r]) graph.resources[r].first_step = s;
      written[r] = true;
    }
    for (int r : graph.steps[s].reads) graph.resources[r].last_step = s;
  }
  for (LogicalResource& r : graph.resources) {
    if (r.kind == ResourceKind::kImported) r.first_step = -1;        // the upload writes it
    if (r.kind == ResourceKind::kExported) r.last_step = num_steps;  // the download reads it
    // Written and never read (an output nobody wants): it still occupies its
    // buffer while it is written.
    if (r.last_step < r.first_step) r.last_step = r.first_step;
  }
}

void AliasTransients(CompiledGraph& graph) {
  graph.buffers.clear();
  std::vector<int> transients;
  for (size_t r = 0; r < graph.resources.size(); ++r) {
    if (graph.resources[r].kind == ResourceKind::kTransient)
      transients.push_back(static_cast<int>(r));
  }
  std::stable_sort(transients.begin(), transients.end(), [&](int a, int b) {
    return graph.resources[a].first_step < graph.resources[b].first_step;
  });
  std::vector<int> busy_until;  // per buffer: the last step any of its resources is used
  for (int r : transients) {
    LogicalResource& resource = graph.resources[r];
    int fit = -1;      // smallest free buffer that is large enough
    int largest = -1;  // else the largest free one, grown
    for (size_t b = 0; b < graph.buffers.size(); ++b) {
      if (busy_until[b] >= resource.first_step) continue;  // lifetimes overlap
      const uint64_t bytes = graph.buffers[b].bytes;
      if (bytes >= resource.bytes && (fit < 0 || bytes < graph.buffers[fit].bytes)) {
        fit = static_cast<int>(b);
      }
      if (largest < 0 || bytes > graph.buffers[largest].bytes) largest = static_cast<int>(b);
    }
    int chosen = fit >= 0 ? fit : largest;
    if (chosen < 0) {
      chosen = static_cast<int>(graph.buffers.size());
      graph.buffers.push_back({0, ResourceKind::kTransient, {}});
      busy_until.push_back(-1);
    }
    PhysicalBuffer& buffer = graph.buffers[chosen];
    buffer.bytes = std::max(buffer.bytes, resource.bytes);
    buffer.resources.push_back(r);
    busy_until[chosen] = std::max(busy_until[chosen], resource.last_step);
    resource.physical = chosen;
  }
  // Imported and exported images move to or from the host: never shared.
  for (size_t r = 0; r < graph.resources.size(); ++r) {
    LogicalResource& resource = graph.resources[r];
    if (resource.kind == ResourceKind::kTransient) continue;
    resource.physical = static_cast<int>(graph.buffers.size());
    graph.buffers.push_back({resource.bytes, resource.kind, {static_cast<int>(r)}});
  }
}

std::vector<StepHazards> FindHazards(const CompiledGraph& graph) {
  // Buffers touched since the last barrier. The upload before step 0 and the
  // download after the last step have their own transfer barriers.
  std::set<int> written;
  std::set<int> read;
  std::vector<StepHazards> hazards(graph.steps.size());
  for (size_t s = 0; s < graph.steps.size(); ++s) {
    const CompiledStep& step = graph.steps[s];
    StepHazards& h = hazards[s];
    for (int r : step.reads) {
      const int b = graph.resources[r].physical;
      if (written.count(b) != 0) h.read_after_write.push_back(b);
    }
    for (int r : step.writes) {
      const int b = graph.resources[r].physical;
      if (written.count(b) != 0 || read.count(b) != 0) h.write_after_use.push_back(b);
    }
    if (h.any()) {
      written.clear();
      read.clear();
    }
    for (int r : step.reads) read.insert(graph.resources[r].physical);
    for (int r : step.writes) written.insert(graph.resources[r].physical);
  }
  return hazards;
}

void PlaceBarriers(CompiledGraph& graph) {
  const std::vector<StepHazards> hazards = FindHazards(graph);
  for (size_t s = 0; s < graph.steps.size(); ++s) graph.steps[s].barrier_before = hazards[s].any();
}

void ComputeStats(CompiledGraph& graph) {
  GraphStats stats;
  for (const CompiledPass& pass : graph.passes) stats.passes_run += pass.internal ? 0 : 1;
  stats.passes_culled = static_cast<int>(graph.culled.size());
  stats.steps = static_cast<int>(graph.steps.size());
  for (const CompiledStep& step : graph.steps) stats.barriers += step.barrier_before ? 1 : 0;
  for (const PhysicalBuffer& buffer : graph.buffers) {
    if (buffer.kind != ResourceKind::kTransient) continue;
    ++stats.transient_buffers;
    stats.transient_bytes += buffer.bytes;
  }
  for (const LogicalResource& r : graph.resources) {
    if (r.kind == ResourceKind::kTransient) stats.transient_bytes_unaliased += r.bytes;
  }
  graph.stats = stats;
}

}  // namespace rgfx::graph::internal

namespace rgfx::graph {

absl::StatusOr<std::shared_ptr<const CompiledGraph>> Compile(const GraphDesc& desc,
                                                             const PassRegistry& registry,
                                                             const gpu::DeviceCaps& caps,
                                                             const CompileLimits& limits) {
  absl::StatusOr<internal::ValidatedGraph> validated = internal::Validate(desc, registry, limits);
  if (!validated.ok()) return validated.status();
  absl::StatusOr<std::vector<int>> order = internal::Order(*validated);
  if (!order.ok()) return order.status();
  const std::vector<bool> live = internal::Cull(*validated);
  absl::StatusOr<CompiledGraph> graph =
      internal::PlanPasses(desc, *validated, *order, live, caps, limits);
  if (!graph.ok()) return graph.status();
  internal::ComputeLifetimes(*graph);
  internal::AliasTransients(*graph);
  internal::PlaceBarriers(*graph);
  internal::ComputeStats(*graph);
  graph->desc = desc;
  graph->caps = caps;
  return std::make_shared<const CompiledGraph>(*std::move(graph));
}

}  // namespace rgfx::graph
