#include "passes/image_metrics.h"

#include <cmath>
#include <limits>

namespace rgfx::passes {
namespace {

template <typename T>
double PsnrOf(std::span<const T> reference, std::span<const T> test, double peak) {
  if (reference.size() != test.size() || reference.empty()) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  double sum = 0;  // double accumulation: millions of values
  for (size_t i = 0; i < reference.size(); ++i) {
    const double d = static_cast<double>(test[i]) - static_cast<double>(reference[i]);
    sum += d * d;
  }
  const double mse = sum / static_cast<double>(reference.size());
  if (mse == 0) return std::numeric_limits<double>::infinity();
  return 10.0 * std::log10(peak * peak / mse);
}

}  // namespace

double Psnr(std::span<const float> reference, std::span<const float> test, double peak) {
  return PsnrOf(reference, test, peak);
}

double Psnr(std::span<const double> reference, std::span<const double> test, double peak) {
  return PsnrOf(reference, test, peak);
}

}  // namespace rgfx::passes
