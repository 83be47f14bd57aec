// composite: add or mix two images of the same size.
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

std::unique_ptr<graph::PassType> MakeCompositePass();

}  // namespace rgfx::passes
