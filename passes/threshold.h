// threshold: the bright pass of bloom, with a soft knee.
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

std::unique_ptr<graph::PassType> MakeThresholdPass();

}  // namespace rgfx::passes
