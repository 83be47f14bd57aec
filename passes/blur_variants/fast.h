// gaussian_blur "fast": what its matrix path (fast.cc) can take on a device,
// for the device notes and the tests.
#pragma once

#include "gpu/caps.h"

namespace rgfx::passes {

// The largest radius the matrix path takes on `caps` (RGBA16F working): its
// panel grows with the radius and must fit the shared memory. −1 without
// matrix units.
int FastMatrixMaxRadius(const gpu::DeviceCaps& caps);

}  // namespace rgfx::passes
