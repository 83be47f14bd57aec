// A pass only the GPU benchmark registers: "fma_probe" runs a fixed number
// of independent fp32 multiply-adds per pixel (shaders/fma_probe.comp), so
// its GPU time gives the device's measured FMA rate, the arithmetic floor
// the blur kernels are compared with. RGBA32F working format only.
#pragma once

#include <cstdint>
#include <memory>

#include "graph/pass_type.h"

namespace rgfx::bench {

std::unique_ptr<graph::PassType> MakeFmaProbePass();

// Scalar fp32 multiply-adds one run of the probe performs on `pixels` pixels.
uint64_t FmaProbeFmas(uint64_t pixels);

}  // namespace rgfx::bench
