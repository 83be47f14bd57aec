// downsample: shrinks by an integer factor with a box filter, or by 2 with
// the 13-tap filtered kernel used by bloom. Output size: ceil(input / factor)
// on each axis (an odd edge becomes a partial block).
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

std::unique_ptr<graph::PassType> MakeDownsamplePass();

}  // namespace rgfx::passes
