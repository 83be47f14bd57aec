// large_radius's recursive kernel without a GPU (passes/blur_variants/
// recursive_fit.h): the weights sum to 1, tap 0 is the Gaussian's, the pole
// damps, the fit is close to the Gaussian over the shapes a client can ask
// for (and closer than the box stack at sigma = radius / 2, so the plan
// takes it there), the table's interpolation between its rows loses
// nothing, and the stated fp32 rounding stays above 100 dB.
// large_radius_tests runs the recursion on the GPU against this kernel.
#include <cmath>
#include <complex>
#include <vector>

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "passes/blur_variants/large_radius.h"
#include "passes/blur_variants/recursive_fit.h"
#include "passes/gaussian_weights.h"

namespace rgfx {
namespace {

double FitPsnr(int radius, double sigma) {
  const passes::RecursiveFit fit = passes::FitRecursiveGaussian(radius, sigma);
  return passes::KernelNoisePsnr(passes::GaussianWeights(radius, sigma), fit.Kernel(radius), true);
}

TEST(RecursiveFit, WeightsSumToOneTapZeroExactAndThePoleDamps) {
  for (int radius : {2, 8, 16, 64, 256, 1024, 4096}) {
    for (double sigma : {radius / 2.0, radius / 6.0 + 0.5, 3.0 * radius + 1, 0.7}) {
      SCOPED_TRACE(absl::StrCat("radius ", radius, " sigma ", sigma));
      const passes::RecursiveFit fit = passes::FitRecursiveGaussian(radius, sigma);
      EXPECT_LT(std::abs(fit.pole), 1.0);
      const std::vector<double> h = fit.Kernel(radius);
      const std::vector<double> g = passes::GaussianWeights(radius, sigma);
      double total = h[0];
      for (int k = 1; k <= radius; ++k) total += 2 * h[k];
      EXPECT_NEAR(total, 1.0, 1e-12);
      EXPECT_NEAR(h[0], g[0], 1e-15);
      // Tap k > 0 is Re(c·p^k), as the recursion applies it.
      std::complex<double> power = fit.pole;
      for (int k = 1; k <= radius; ++k, power *= fit.pole) {
        ASSERT_NEAR(h[k], (fit.coefficient * power).real(), 1e-15) << k;
      }
    }
  }
}

// Expected PSNR on uniform noise (both axes): at sigma = radius / 2 the
// damped cosine is within ~1% of the Gaussian (maximum relative error);
// sharper kernels (radius / sigma up to 6) fit less well but stay above
// the 50 dB the issue asks for; flatter ones fit better.
TEST(RecursiveFit, CloseToTheGaussianAndCloserThanTheBoxStack) {
  for (int radius : {16, 40, 64, 256, 1024, 4096}) {
    SCOPED_TRACE(absl::StrCat("radius ", radius));
    EXPECT_GE(FitPsnr(radius, radius / 2.0), 80.0);
    EXPECT_GE(FitPsnr(radius, radius / 6.0), 60.0);
    EXPECT_GE(FitPsnr(radius, 2.0 * radius), FitPsnr(radius, radius / 2.0));
    const passes::BoxStack stack = passes::ChooseBoxStack(radius, radius / 2.0);
    EXPECT_GT(FitPsnr(radius, radius / 2.0),
              passes::KernelNoisePsnr(passes::GaussianWeights(radius, radius / 2.0),
                                      stack.Kernel(radius), true) +
                  10.0);
  }
}

// Between two rows of the table (fitted offline at shapes 2^(k/4)), the
// interpolated pole fits about as well as the rows' own: a shape halfway
// is no more than 1 dB below the worse of its neighbours.
TEST(RecursiveFit, TheTableInterpolatesWithoutLoss) {
  const int radius = 2048;
  for (int k = -12; k < 20; ++k) {
    const double lo = std::pow(2.0, k / 4.0), hi = std::pow(2.0, (k + 1) / 4.0);
    const double mid = std::sqrt(lo * hi);
    SCOPED_TRACE(absl::StrCat("shape ", mid));
    const double worse = std::min(FitPsnr(radius, radius / lo), FitPsnr(radius, radius / hi));
    EXPECT_GE(FitPsnr(radius, radius / mid), worse - 1.0);
  }
}

TEST(RecursiveFit, StatedRoundingAboveAHundredDecibels) {
  for (int radius : {8, 64, 256, 1024, 4096}) {
    SCOPED_TRACE(absl::StrCat("radius ", radius));
    const double rounding = passes::RecursiveRoundingPsnr(
        passes::FitRecursiveGaussian(radius, radius / 2.0), radius, 1920, true,
        passes::RecursiveMaxChunk());
    // Far below the box stack's kernel error too (the recursion's own
    // kernel is so close at large radii that the rounding is what is left).
    EXPECT_GT(rounding, 100.0);
  }
}

}  // namespace
}  // namespace rgfx
