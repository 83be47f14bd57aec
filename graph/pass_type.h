// The interface every pass type implements (passes/ holds the
// implementations). A pass declares its parameters, plans its work from its
// input sizes (output sizes, internal temporaries, constant data, the steps it
// dispatches) and records each step. The graph does everything else:
// validation, ordering, culling, memory, barriers and timing.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <volk.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gpu/buffer_slice.h"
#include "gpu/caps.h"
#include "gpu/shader_code.h"
#include "graph/image_format.h"
#include "graph/params.h"

namespace rgfx::gpu {
class PipelineCache;
}

namespace rgfx::graph {

struct PassSchema {
  std::string doc;                       // one paragraph for the catalog
  std::vector<std::string> input_names;  // e.g. {"source"}; the arity is their count
  int min_inputs = 1;                    // inputs past min_inputs are optional
  std::vector<std::string> output_names;
  std::vector<ParamSpec> params;
  // The enum parameter that selects a kernel variant ("" if none); timing rows
  // report the variant it resolves to.
  std::string variant_param;
  // Free-form notes for the catalog (limits, chosen tunings, error bounds).
  std::vector<std::string> notes;
};

// Where a step's buffer comes from.
struct StepResource {
  enum class Kind { kInput, kOutput, kTemp };
  Kind kind = Kind::kInput;
  int index = 0;
  static StepResource Input(int i) { return {Kind::kInput, i}; }
  static StepResource Output(int i) { return {Kind::kOutput, i}; }
  static StepResource Temp(int i) { return {Kind::kTemp, i}; }
  bool operator==(const StepResource&) const = default;
};

// One dispatch (or a few, with no barrier needed between them): the unit the
// graph orders, places barriers between and times.
struct StepPlan {
  std::string label;  // e.g. "horizontal"
  std::vector<StepResource> reads;
  std::vector<StepResource> writes;
};

struct PassPlan {
  std::vector<Extent> output_extents;  // one per output, in the working format
  std::vector<Extent> temp_extents;    // internal resources, working format
  // Small read-only blobs (weights, tables) uploaded before the graph runs.
  std::vector<std::vector<std::byte>> constants;
  std::vector<StepPlan> steps;
  std::string variant;  // resolved variant name ("" for passes without variants)
  // Pass-private data computed once at compile time and kept with the
  // compiled graph (e.g. a chosen workgroup size).
  std::any prepared;
};

struct PlanContext {
  const std::string& pass_name;
  const Params& params;                  // validated, defaults filled
  std::span<const Extent> input_extents;
  PixelFormat working_format;
  const gpu::DeviceCaps& caps;
};

// What a step sees while it is recorded.
class RecordContext {
 public:
  virtual ~RecordContext() = default;
  virtual const gpu::DeviceCaps& caps() const = 0;
  virtual PixelFormat working_format() const = 0;
  virtual const PassPlan& plan() const = 0;
  virtual const Params& params() const = 0;
  virtual std::span<const Extent> input_extents() const = 0;
  // The step's buffers, in the order StepPlan listed them.
  virtual const gpu::BufferSlice& read(int i) const = 0;
  virtual const gpu::BufferSlice& write(int i) const = 0;
  virtual const gpu::BufferSlice& constants(int i) const = 0;
  // Binds the shader (its pipeline is created on first use and cached),
  // pushes `buffers` to bindings 0..N-1 and `push` as push constants, and
  // dispatches. Checks the counts against the shader's declared interface.
  virtual absl::Status Dispatch(const gpu::ShaderCode& shader, const gpu::SpecConstants& spec,
                                std::span<const gpu::BufferSlice> buffers,
                                std::span<const std::byte> push, uint32_t groups_x,
                                uint32_t groups_y, uint32_t groups_z) = 0;
  // A compute→compute barrier between dispatches inside one step.
  virtual void ComputeBarrier() = 0;

  template <typename T>
  absl::Status Dispatch(const gpu::ShaderCode& shader, const gpu::SpecConstants& spec,
                        std::span<const gpu::BufferSlice> buffers, const T& push, uint32_t gx,
                        uint32_t gy, uint32_t gz) {
    return Dispatch(shader, spec, buffers,
                    std::as_bytes(std::span<const T>(&push, 1)), gx, gy, gz);
  }
};

class PassType {
 public:
  virtual ~PassType() = default;
  virtual std::string_view name() const = 0;
  virtual const PassSchema& schema() const = 0;
  // Called with validated params and the inputs' extents. Errors name the pass
  // and what is wrong (sizes that do not match, a radius the variant cannot do).
  virtual absl::StatusOr<PassPlan> Plan(const PlanContext& ctx) const = 0;
  // Records step `step` of the plan.
  virtual absl::Status Record(RecordContext& ctx, int step) const = 0;
};

}  // namespace rgfx::graph
