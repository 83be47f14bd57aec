// The result of compiling a GraphDesc: passes in execution order, the flat
// list of steps with their barriers, logical resources with lifetimes, and the
// physical buffers they alias onto. Immutable once built; shared by requests
// through the cache.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpu/caps.h"
#include "graph/description.h"
#include "graph/pass_type.h"

namespace rgfx::graph {

enum class ResourceKind {
  kImported,   // raw bytes of a client image (client format), uploaded
  kExported,   // raw bytes of an output (client format), downloaded
  kTransient,  // working-format image or a pass temporary: aliased
};

struct LogicalResource {
  std::string name;  // "photo", "photo@raw", "soft@out", "blur#tmp0"
  ResourceKind kind = ResourceKind::kTransient;
  Extent extent;
  PixelFormat format = PixelFormat::kRgba16F;
  uint64_t bytes = 0;
  int physical = -1;  // index into CompiledGraph::buffers
  // Steps (indices into CompiledGraph::steps) of the first write and last read.
  // Imported resources are written by the upload before step 0 (first_step =
  // -1); exported ones are read by the download after the last step
  // (last_step = steps.size()). A resource nobody reads ends where it is
  // written. Transients alias only if one's last_step < the other's first_step.
  int first_step = -1;
  int last_step = -1;
};

struct PhysicalBuffer {
  uint64_t bytes = 0;
  ResourceKind kind = ResourceKind::kTransient;
  std::vector<int> resources;  // logical resources that live in it
};

struct CompiledPass {
  std::string name;
  std::string type;
  const PassType* impl = nullptr;
  Params params;  // validated, defaults filled
  std::vector<int> inputs;   // logical resource per declared input
  std::vector<int> outputs;  // logical resource per declared output
  std::vector<int> temps;    // logical resource per plan temp
  std::vector<Extent> input_extents;
  PassPlan plan;
  int first_step = 0;  // its steps are contiguous
  int num_steps = 0;
  bool internal = false;  // an import/export pass the compiler inserted
};

struct CompiledStep {
  int pass = 0;  // index into CompiledGraph::passes
  int step = 0;  // index into that pass's plan.steps
  std::vector<int> reads;   // logical resources
  std::vector<int> writes;
  // A compute→compute memory barrier precedes this step because it reads
  // what an earlier step wrote, or overwrites a buffer an earlier step used.
  bool barrier_before = false;
};

struct GraphStats {
  int passes_run = 0;     // client passes executed (internal ones not counted)
  int passes_culled = 0;  // client passes that feed no output
  int steps = 0;
  int barriers = 0;  // compute→compute barriers between steps
  int transient_buffers = 0;
  uint64_t transient_bytes = 0;           // with aliasing
  uint64_t transient_bytes_unaliased = 0; // one buffer per transient resource
};

struct CompiledGraph {
  GraphDesc desc;
  gpu::DeviceCaps caps;  // what it was planned for
  std::vector<CompiledPass> passes;  // execution order, import/export included
  std::vector<CompiledStep> steps;
  std::vector<LogicalResource> resources;
  std::vector<PhysicalBuffer> buffers;
  // Resource per desc.inputs entry; -1 for an input no surviving pass reads
  // (its import was culled, nothing to upload).
  std::vector<int> imported;
  std::vector<int> exported;  // resource per desc.outputs entry
  std::vector<std::string> culled;  // names of culled client passes, in desc order
  GraphStats stats;
};

}  // namespace rgfx::graph
