// Registers every built-in pass type (import/export, gaussian_blur, ...).
// Adding a pass type = its .h/.cc, its shaders, and one line here.
#pragma once

#include "graph/registry.h"

namespace rgfx::passes {

void RegisterBuiltinPasses(graph::PassRegistry& registry);

}  // namespace rgfx::passes
