// Small helpers every pass uses: picking the shader build for the working
// format, workgroup counts, enum parameters as indices.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/shader_code.h"
#include "graph/image_format.h"
#include "graph/params.h"

namespace rgfx::passes {

// The build of a shader for `working` (RGBA16F or RGBA32F).
template <size_t N16, size_t N32>
gpu::ShaderCode WorkingShader(graph::PixelFormat working, std::string_view name,
                              const uint32_t (&f16)[N16], const uint32_t (&f32)[N32],
                              uint32_t num_buffers, uint32_t push_bytes) {
  if (working == graph::PixelFormat::kRgba32F) {
    return {name, std::span<const uint32_t>(f32, N32), num_buffers, push_bytes};
  }
  return {name, std::span<const uint32_t>(f16, N16), num_buffers, push_bytes};
}

inline uint32_t DivideRoundingUp(uint64_t value, uint32_t divisor) {
  return static_cast<uint32_t>((value + divisor - 1) / divisor);
}

// Index of the enum parameter's value in `values` (validated params only).
uint32_t EnumIndex(const graph::Params& params, const std::string& name,
                   const std::vector<std::string>& values);

// The parameter spec of a border mode, shared by every pass that samples
// outside the image.
graph::ParamSpec BorderParamSpec();
const std::vector<std::string>& BorderModes();  // order = RGFX_BORDER_*

}  // namespace rgfx::passes
