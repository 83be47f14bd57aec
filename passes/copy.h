// copy: the identity. The cheapest possible pass, so benchmarks time it to
// measure the device's copy bandwidth (the floor for every other pass).
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

std::unique_ptr<graph::PassType> MakeCopyPass();

}  // namespace rgfx::passes
