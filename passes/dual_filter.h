// dual_filter: the dual Kawase blur — `iterations` half-size down steps, then
// as many up steps back to the input's size — a wide blur for a few reads per
// pixel. Level k has size ceil(level k-1 / 2); each up step returns exactly
// to the size of the level above it, so any input size works.
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

std::unique_ptr<graph::PassType> MakeDualFilterPass();

}  // namespace rgfx::passes
