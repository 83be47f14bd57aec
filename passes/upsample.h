// upsample: grows by an integer factor (nearest, bilinear or tent), and with
// an optional second input "base" adds the result to it — the bloom
// up-chain. Output size: input × factor, or base's size when given (base must
// be a size that downsample by the same factor turns into the input's).
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

std::unique_ptr<graph::PassType> MakeUpsamplePass();

}  // namespace rgfx::passes
