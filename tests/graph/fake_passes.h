// Fake pass types for graph tests: they plan like the real ones (sizes, temps,
// steps) but record nothing, so the compiler is tested without a GPU.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "graph/compile.h"
#include "graph/description.h"
#include "graph/registry.h"

namespace rgfx::graph::testing {

// Registers "import" and "export" (one step each), "blur" (2 steps through a
// temp, size kept), "composite" (2 or 3 inputs of equal size, one step),
// "downsample" (divides by `factor`, rounding down, so 1×1 becomes 0×0),
// "upsample" (multiplies by `factor`) and "split" (one input, two outputs).
std::unique_ptr<PassRegistry> MakeFakeRegistry();

// Builders that keep test graphs short.
InputDesc In(const std::string& name, uint32_t width = 64, uint32_t height = 32);
PassDesc P(const std::string& name, const std::string& type,
           std::initializer_list<std::string> inputs, std::initializer_list<std::string> outputs,
           Params params = {});
OutputDesc Out(const std::string& name);

// photo → blur1 → blur2 → ... → blur<n> (named "b<n>"), exported as "b<n>".
GraphDesc BlurChain(int n, uint32_t width = 64, uint32_t height = 32);

// The names of `graph`'s passes in execution order.
std::vector<std::string> PassNames(const CompiledGraph& graph);
// Indices of the steps with barrier_before.
std::vector<int> BarrierSteps(const CompiledGraph& graph);
// The resource called `name`, or -1.
int FindResource(const CompiledGraph& graph, const std::string& name);

}  // namespace rgfx::graph::testing
