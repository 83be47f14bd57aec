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

// Overlap-save: segments of at most N − 2R outputs, as few as hold the
// line, balanced.
TEST(FastFft, SegmentsHoldTheLineWithTheirContext) {
  const auto expect = [](uint64_t n, uint64_t radius, uint64_t size, uint64_t segments,
                         uint64_t segment) {
    const passes::FftSegments s = passes::FftSegmentsOf(n, radius, size);
    EXPECT_EQ(s.size, size);
    EXPECT_EQ(s.segments, segments) << n << " " << radius << " " << size;
    EXPECT_EQ(s.segment, segment) << n << " " << radius << " " << size;
    EXPECT_LE(s.segment + 2 * radius, size);     // each one's context fits
    EXPECT_GE(s.segment * s.segments, n);        // they hold the line
    EXPECT_LT(s.segment * (s.segments - 1), n);  // and the last one is not empty
  };
  expect(1920, 64, 2048, 1, 1920);
  expect(1921, 64, 2048, 2, 961);
  expect(1080, 64, 512, 3, 360);
  expect(1, 0, 256, 1, 1);
  expect(1000, 127, 256, 500, 2);
  expect(3840, 1000, 4096, 2, 1920);
}

// The cheapest shape by FftCost on a 48 KB device: short transforms where
// the radius is small against the line, one piece where the overlap would
// cost more, 8 elements an invocation up to 1024 points, one channel pair a
// workgroup for 4096, nothing where no transform holds the context.
passes::FftShape Cheapest(uint64_t n, uint64_t radius, bool columns,
                          passes::FftPolicy policy = {-1, 0, false, 0}) {
  gpu::DeviceCaps caps;
  caps.max_compute_shared_memory_bytes = 48 << 10;
  const std::optional<passes::FftShape> shape =
      passes::FftCheapestShape(n, radius, columns, caps, policy);
  return shape.value_or(passes::FftShape{});
}

TEST(FastFft, ChoosesTheCheapestShape) {
  // Rows of 1920 at r = 64: five segments of 512 points, 8 an invocation
  // (kappa 88 · 5 · 512 · 9 against 130 · 2048 · 11 in one piece).
  passes::FftShape s = Cheapest(1920, 64, false);
  EXPECT_EQ(s.cut.size, 512u);
  EXPECT_EQ(s.cut.segments, 5u);
  EXPECT_EQ(s.per_invocation, 8u);
  EXPECT_FALSE(s.pairs);
  EXPECT_EQ(Cheapest(1080, 64, true).cut.size, 512u);  // columns: three segments
  EXPECT_EQ(Cheapest(100, 5, false).cut.size, 256u);    // the whole line
  EXPECT_EQ(Cheapest(1920, 40, false).cut.size, 512u);  // 256 in segments lost
  EXPECT_EQ(Cheapest(1920, 40, false, {0, 0, false, 256}).cut.size, 256u);
  s = Cheapest(1080, 1024, false);
  EXPECT_EQ(s.cut.size, 4096u);
  EXPECT_EQ(s.per_invocation, 16u);
  EXPECT_TRUE(s.pairs);
  // The policy's length and elements an invocation, where they fit.
  s = Cheapest(1920, 64, false, {0, 16, false, 2048});
  EXPECT_EQ(s.cut.size, 2048u);
  EXPECT_EQ(s.per_invocation, 16u);
  EXPECT_EQ(Cheapest(1080, 128, false, {0, 0, false, 256}).cut.size, 0u);  // 256 holds no output
  EXPECT_EQ(Cheapest(1080, 3000, false).cut.size, 0u);                    // 2R >= 4096
  EXPECT_NEAR(passes::FftWork(passes::FftSegmentsOf(1920, 64, 2048)), 1.0, 1e-12);
  EXPECT_NEAR(passes::FftWork(passes::FftSegmentsOf(1080, 64, 512)), 3 * 512 * 9 / (2048 * 11.0),
              1e-12);
}

// Neighbouring columns a workgroup: as many as fit 128 invocations and the
// shared memory.
TEST(FastFft, ColumnsAWorkgroupFitTheInvocationsAndSharedMemory) {
  gpu::DeviceCaps caps;
  caps.max_compute_shared_memory_bytes = 48 << 10;
  EXPECT_EQ(passes::FftColumnsAWorkgroup(caps, 256, 8, false), 4u);   // 32 each
  EXPECT_EQ(passes::FftColumnsAWorkgroup(caps, 512, 8, false), 2u);   // 64 each
  EXPECT_EQ(passes::FftColumnsAWorkgroup(caps, 1024, 8, false), 1u);  // 128
  EXPECT_EQ(passes::FftColumnsAWorkgroup(caps, 2048, 16, false), 1u);
  EXPECT_EQ(passes::FftColumnsAWorkgroup(caps, 256, 16, false), 4u);  // 16 each, 4 KB each
  caps.max_compute_shared_memory_bytes = 8 << 10;
  EXPECT_EQ(passes::FftColumnsAWorkgroup(caps, 256, 8, false), 2u);  // 4 KB each
  EXPECT_EQ(passes::FftColumnsAWorkgroup(caps, 256, 8, true), 4u);   // 2 KB each
  EXPECT_EQ(Cheapest(1080, 64, true).lines, 2u);
  EXPECT_EQ(Cheapest(1080, 64, false).lines, 1u);  // rows: one
  EXPECT_EQ(Cheapest(1080, 64, true, {0, 0, false, 0, 4}).lines, 4u);
}

// Which kernel each axis of a 1920 x 1080 (or 3840 x 2160) RGBA32F blur
// takes on a 48 KB device, by the cost model (fitted to the H100 for the
// shapes 1080p takes, to the H200 for the others).
plan_test::PlannedVariant PlanFast32(int radius, uint32_t w, uint32_t h, uint32_t border) {
  passes::BlurConfig c;
  c.pass_name = "blur";
  c.radius = radius;
  c.sigma = radius / 2.0;
  c.border = border;
  c.axes = "both";
  c.extent = {w, h};
  c.working = PixelFormat::kRgba32F;
  c.caps.max_compute_shared_memory_bytes = 48 << 10;
  return plan_test::PlanVariant("fast", c);
}

std::vector<std::string> StepDetails(int radius, uint32_t w = 1920, uint32_t h = 1080) {
  const plan_test::PlannedVariant p = PlanFast32(radius, w, h, RGFX_BORDER_CLAMP);
  std::vector<std::string> details;
  for (const passes::StepKernel& k : p.prepared.steps) details.push_back(k.details);
  return details;
}

TEST(FastFft, TakesTheTransformWhereItsCostModelSays) {
  using ::testing::HasSubstr;
  using ::testing::Not;
  // r = 32: both axes on the line paths.
  for (const std::string& d : StepDetails(32)) EXPECT_THAT(d, Not(HasSubstr("FFT")));
  // r = 40: the rows through the transform (the H100 took 49.2 us against
  // 53.0 on the line paths), the columns not (55.8 against 51.7).
  std::vector<std::string> d = StepDetails(40);
  EXPECT_THAT(d[0], HasSubstr("FFT"));
  EXPECT_THAT(d[1], Not(HasSubstr("FFT")));
  // r = 56: both (the columns 56.1 against 62.5).
  for (const std::string& e : StepDetails(56)) EXPECT_THAT(e, HasSubstr("FFT"));
  // r = 64: the rows in five segments of 512 points, the columns in three,
  // two columns a workgroup.
  d = StepDetails(64);
  EXPECT_THAT(d[0], HasSubstr("of 64 per segment (5 a line of 384 pixels at most), 512-point"));
  EXPECT_THAT(d[0], HasSubstr("(radix 8)"));
  EXPECT_THAT(d[1], HasSubstr("of 64 x 2 columns per segment (3 a line of 360 pixels at most)"));
  // r = 300: both, the columns in one piece.
  d = StepDetails(300);
  EXPECT_THAT(d[0], HasSubstr("1024-point transforms"));
  EXPECT_THAT(d[1], HasSubstr("per line, 2048-point transforms (radix 16)"));
  // r = 1024: both, 4096 points, a channel pair a workgroup.
  d = StepDetails(1024);
  EXPECT_THAT(d[0], HasSubstr("4096-point transforms"));
  EXPECT_THAT(d[0], HasSubstr("channel pair"));
  EXPECT_THAT(d[1], HasSubstr("4096-point transforms"));
  // 4K r = 256: both, in segments (the H200 took 309.5 and 483.3 us in
  // 2048 points against 811.8 and 819.7 on the line paths).
  for (const std::string& e : StepDetails(256, 3840, 2160)) {
    EXPECT_THAT(e, HasSubstr("per segment ("));
  }
  // The model itself: (70 + 2R + 1)·n against FftCost.
  EXPECT_TRUE(passes::FftPays(1920, 64, 0.95 * (70 + 129) * 1920));
  EXPECT_FALSE(passes::FftPays(1920, 64, 0.95 * (70 + 129) * 1920 + 1));
}

// Both axes through the transform with two columns a workgroup: the
// temporary in strips of 2 columns (the rows store pixel (x, y) at
// (x / 2)·2H + 2y + x % 2, the columns load their two columns as one run),
// its width rounded up to whole strips; one axis, or the policy off: the
// image's own layout.
TEST(FastFft, TemporaryInStripsOfTheColumnsAWorkgroup) {
  struct Reset {
    ~Reset() { passes::SetFastFftPolicy(std::nullopt); }
  } reset;
  const auto plan = [](uint32_t w, uint32_t h, int radius) {
    return PlanFast32(radius, w, h, RGFX_BORDER_MIRROR);
  };
  const plan_test::PlannedVariant p = plan(1919, 1080, 64);
  ASSERT_EQ(p.prepared.steps.size(), 2u);
  const passes::StepKernel& rows = p.prepared.steps[0];
  const passes::StepKernel& columns = p.prepared.steps[1];
  EXPECT_THAT(rows.details, ::testing::HasSubstr("stores the temporary in strips of 2 columns"));
  EXPECT_THAT(columns.details, ::testing::HasSubstr("loads the temporary in strips of 2 columns"));
  ASSERT_EQ(p.plan.temp_extents.size(), 1u);
  EXPECT_EQ(p.plan.temp_extents[0].width, 1920u);
  EXPECT_EQ(p.plan.temp_extents[0].height, 1080u);
  // Rows: line y, pixel x -> 2y + (x / 2)·2H + x % 2 (spec constant 5: the split).
  EXPECT_EQ(rows.layout.out_line_stride, 2u);
  EXPECT_EQ(rows.layout.out_pixel_stride, 2u * 1080);
  EXPECT_EQ(rows.layout.in_line_stride, 1919u);  // the input as it is
  EXPECT_EQ(rows.spec.values.at(5), 2u);
  EXPECT_EQ(rows.spec.values.at(4), 1u);
  // Columns: line x, pixel y -> (x / 2)·2H + x % 2 + 2y (spec constant 4).
  EXPECT_EQ(columns.layout.in_line_stride, 2u * 1080);
  EXPECT_EQ(columns.layout.in_pixel_stride, 2u);
  EXPECT_EQ(columns.layout.out_pixel_stride, 1919u);  // the output as it is
  EXPECT_EQ(columns.spec.values.at(4), 2u);
  EXPECT_EQ(columns.spec.values.at(5), 1u);
  // r = 40: the columns on the line paths, so the image's layout.
  const plan_test::PlannedVariant q = plan(1920, 1080, 40);
  ASSERT_EQ(q.prepared.steps.size(), 2u);
  EXPECT_THAT(q.prepared.steps[0].details, ::testing::Not(::testing::HasSubstr("strips")));
  EXPECT_EQ(q.prepared.steps[0].layout.out_pixel_stride, 1u);
  // The policy off: the image's layout at r = 64 too.
  passes::FftPolicy off = passes::FastFftPolicy();
  off.strip_temporary = false;
  passes::SetFastFftPolicy(off);
  const plan_test::PlannedVariant o = plan(1919, 1080, 64);
  ASSERT_EQ(o.prepared.steps.size(), 2u);
  EXPECT_EQ(o.prepared.steps[0].layout.out_pixel_stride, 1u);
  EXPECT_EQ(o.prepared.steps[1].layout.in_pixel_stride, 1919u);
  EXPECT_EQ(o.plan.temp_extents[0].width, 1919u);
}

}  // namespace
}  // namespace rgfx
