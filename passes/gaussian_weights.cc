#include "passes/gaussian_weights.h"

#include <cmath>

namespace rgfx::passes {

std::vector<double> GaussianWeights(int radius, double sigma) {
  std::vector<double> w(static_cast<size_t>(radius) + 1);
  if (radius == 0) {
    w[0] = 1.0;
    return w;
  }
  double total = 0.0;
  for (int k = 0; k <= radius; ++k) {
    w[k] = std::exp(-0.5 * (k * k) / (sigma * sigma));
    total += k == 0 ? w[k] : 2.0 * w[k];
  }
  for (double& v : w) v /= total;
  return w;
}

}  // namespace rgfx::passes
