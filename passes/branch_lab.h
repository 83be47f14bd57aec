// branch_lab: the same fast/slow per-pixel workload with the branch decided
// at compile time (specialization constant), by a uniform (push constant) or
// per thread (divergent), kept or flattened — to measure what an `if` costs
// on the server's GPU. Every mode writes bit-identical pixels.
#pragma once

#include <memory>

#include "graph/pass_type.h"

namespace rgfx::passes {

// The image is processed in this many row bands, one dispatch each, in every
// mode, so "a fraction of dispatches" is the coherent counterpart of "a
// fraction of threads".
inline constexpr uint32_t kBranchLabBands = 16;

std::unique_ptr<graph::PassType> MakeBranchLabPass();

}  // namespace rgfx::passes
