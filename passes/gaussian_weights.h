// Gaussian weights for taps 0..radius (the kernel is symmetric), computed in
// double and normalised so the 2·radius+1 taps sum to 1: a constant image
// stays constant.
#pragma once

#include <vector>

namespace rgfx::passes {

// sigma <= 0 is not allowed for radius > 0 (the pass validates it).
std::vector<double> GaussianWeights(int radius, double sigma);

}  // namespace rgfx::passes
