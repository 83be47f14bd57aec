// fast RGBA32F through the FFT without a GPU: the kernel's spectrum against
// a direct DFT in double, the twiddles, the transform lengths, and where the
// plan takes the transform (its cost model) on a 48 KB device. The kernel
// itself runs in blur_variants_tests (lavapipe and the H200) against the
// double-precision reference.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "passes/blur_variants/blur_variant.h"
#include "passes/blur_variants/fast_fft.h"
#include "passes/gaussian_weights.h"
#include "passes/shader_interface.h"
#include "tests/passes/variant_plan.h"

namespace rgfx {
namespace {

using graph::PixelFormat;

TEST(FastFft, SpectrumIsTheKernelsDftOverN) {
  for (const int radius : {0, 1, 5, 64, 300}) {
    const std::vector<double> w = passes::GaussianWeights(radius, radius > 0 ? radius / 2.0 : 1.0);
    const uint32_t size = radius > 100 ? 1024 : 256;
    const std::vector<float> spectrum = passes::FftKernelSpectrum(w, size);
    ASSERT_EQ(spectrum.size(), size);
    for (uint32_t k = 0; k < size; ++k) {
      // Σ over the circular kernel h[t] = w[|t|], t in [-R, R].
      double re = 0, im = 0;
      for (int t = -radius; t <= radius; ++t) {
        const double angle = -2 * std::numbers::pi * double(t) * k / size;
        re += w[std::abs(t)] * std::cos(angle);
        im += w[std::abs(t)] * std::sin(angle);
      }
      EXPECT_NEAR(spectrum[k], re / size, 2e-7 / size) << "radius " << radius << " k " << k;
      EXPECT_NEAR(im, 0.0, 1e-12);  // symmetric: real
    }
    EXPECT_NEAR(spectrum[0] * size, 1.0, 1e-6);  // the weights sum to 1
  }
}

TEST(FastFft, TwiddlesAreTheRootsOfUnity) {
  const std::vector<float> t = passes::FftTwiddles(512);
  ASSERT_EQ(t.size(), 1024u);
  for (uint32_t k = 0; k < 512; ++k) {
    EXPECT_NEAR(t[2 * k], std::cos(2 * std::numbers::pi * k / 512), 1e-7);
    EXPECT_NEAR(t[2 * k + 1], -std::sin(2 * std::numbers::pi * k / 512), 1e-7);
  }
}

TEST(FastFft, LineSizeHoldsTheLineAndBothBorders) {
  EXPECT_EQ(passes::FftLineSize(1, 0), 256u);
  EXPECT_EQ(passes::FftLineSize(1920, 64), 2048u);
  EXPECT_EQ(passes::FftLineSize(1920, 65), 4096u);
  EXPECT_EQ(passes::FftLineSize(1080, 484), 2048u);
  EXPECT_EQ(passes::FftLineSize(1080, 485), 4096u);
  gpu::DeviceCaps caps;
  caps.max_compute_shared_memory_bytes = 48 << 10;
  EXPECT_EQ(passes::FftMaxSize(caps, 16, false), 2048u);  // 16 bytes an element
  EXPECT_EQ(passes::FftMaxSize(caps, 16, true), 4096u);   // 8
  caps.max_compute_shared_memory_bytes = 32 << 10;
  EXPECT_EQ(passes::FftMaxSize(caps, 16, false), 2048u);
}

// Which kernel each axis of a 1920 x 1080 (or 3840 x 2160) RGBA32F blur
// takes on a 48 KB device, by the cost model fitted to the H200.
std::vector<std::string> StepDetails(int radius, uint32_t w = 1920, uint32_t h = 1080) {
  passes::BlurConfig c;
  c.pass_name = "blur";
  c.radius = radius;
  c.sigma = radius / 2.0;
  c.border = RGFX_BORDER_CLAMP;
  c.axes = "both";
  c.extent = {w, h};
  c.working = PixelFormat::kRgba32F;
  c.caps.max_compute_shared_memory_bytes = 48 << 10;
  const plan_test::PlannedVariant p = plan_test::PlanVariant("fast", c);
  std::vector<std::string> details;
  for (const passes::StepKernel& k : p.prepared.steps) details.push_back(k.details);
  return details;
}

TEST(FastFft, TakesTheTransformWhereItsCostModelSays) {
  using ::testing::HasSubstr;
  using ::testing::Not;
  // r = 64: both axes on the line paths (the transform lost on the H200).
  for (const std::string& d : StepDetails(64)) EXPECT_THAT(d, Not(HasSubstr("FFT")));
  // r = 300: the columns transform (2048 points), the rows do not yet.
  std::vector<std::string> d = StepDetails(300);
  EXPECT_THAT(d[0], Not(HasSubstr("FFT")));
  EXPECT_THAT(d[1], HasSubstr("2048-point transforms"));
  // r = 1024: both, 4096 points, a channel pair a workgroup.
  d = StepDetails(1024);
  EXPECT_THAT(d[0], HasSubstr("4096-point transforms"));
  EXPECT_THAT(d[0], HasSubstr("channel pair"));
  EXPECT_THAT(d[1], HasSubstr("4096-point transforms"));
  // 4K r = 256: neither (the columns' transform took ~1.8x the line paths).
  for (const std::string& e : StepDetails(256, 3840, 2160)) EXPECT_THAT(e, Not(HasSubstr("FFT")));
  // The model itself: break-even (2R + 1)·n >= kappa·N.
  EXPECT_FALSE(passes::FftPays(1080, 200, 2048, true, false));
  EXPECT_TRUE(passes::FftPays(1080, 300, 2048, true, false));
  EXPECT_FALSE(passes::FftPays(1920, 300, 4096, false, true));
  EXPECT_TRUE(passes::FftPays(1920, 1024, 4096, false, true));
}

}  // namespace
}  // namespace rgfx
