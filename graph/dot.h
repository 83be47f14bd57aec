// A compiled graph as Graphviz dot, for debugging: passes as boxes (culled
// ones dashed), resources as ellipses labelled with size and physical buffer,
// barriers marked on the edges into the step they guard.
#pragma once

#include <string>

#include "graph/compiled_graph.h"

namespace rgfx::graph {

std::string ToDot(const CompiledGraph& graph);

}  // namespace rgfx::graph
