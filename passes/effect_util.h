// Small helpers shared by the effect passes (downsample, upsample, threshold,
// composite, dual_filter, branch_lab).
#pragma once

#include <string>

#include "absl/strings/str_cat.h"
#include "graph/image_format.h"

namespace rgfx::passes {

inline std::string SizeName(graph::Extent e) { return absl::StrCat(e.width, "x", e.height); }

// ceil(extent / factor) on both axes: the size of a downsampled level.
inline graph::Extent Shrink(graph::Extent e, uint32_t factor) {
  return {(e.width + factor - 1) / factor, (e.height + factor - 1) / factor};
}

}  // namespace rgfx::passes
