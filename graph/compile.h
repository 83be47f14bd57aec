// Compiling a graph, in named steps that can each be tested alone (after
// Granite's bake()): validate → order → cull → plan passes → lifetimes →
// alias → barriers. No GPU is touched: the caps say what to plan for.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "gpu/caps.h"
#include "graph/compiled_graph.h"
#include "graph/description.h"
#include "graph/registry.h"

namespace rgfx::graph {

struct CompileLimits {
  int max_passes = 64;
  uint64_t max_pixels = 64ull << 20;  // per image, inputs and every resource
};

// Every error is InvalidArgument (or ResourceExhausted for limits) and names
// the pass, resource or field: unknown pass type or resource, a resource
// written twice, a cycle, mismatched sizes, parameters out of range, no
// outputs, an empty graph, an output that no pass or input produces.
absl::StatusOr<std::shared_ptr<const CompiledGraph>> Compile(const GraphDesc& desc,
                                                              const PassRegistry& registry,
                                                              const gpu::DeviceCaps& caps,
                                                              const CompileLimits& limits = {});

}  // namespace rgfx::graph
