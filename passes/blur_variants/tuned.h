// What the tuned variant chooses for a line on a device (public so the
// catalog and benchmarks can show it).
#pragma once

#include <cstdint>
#include <string>

#include "gpu/caps.h"
#include "graph/image_format.h"

namespace rgfx::passes {

inline constexpr uint32_t kTunedMaxGroup = 512;

struct TunedChoice {
  uint32_t group = 1;   // invocations per workgroup (specialization constant 0)
  uint32_t wide = 1;    // vec4 cache pixels (constant 1); 1 = unused
  uint32_t packed = 1;  // packed RGBA16F cache pixels (constant 2); 1 = unused
  std::string Describe() const;
};

TunedChoice ChooseTuned(const gpu::DeviceCaps& caps, graph::PixelFormat working, uint32_t n);

}  // namespace rgfx::passes
