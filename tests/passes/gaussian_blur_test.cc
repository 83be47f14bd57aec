// The exact Gaussian blur on the GPU against the double-precision CPU
// reference (tests/support/reference.h), on random images of odd sizes.
//
// Tolerances, in normalised units (1.0 = full scale), compared against the
// unrounded reference:
// - working RGBA16F: 3e-3. The import result, the horizontal intermediate and
//   the vertical result are each rounded to half precision (11 significant
//   bits: ≤ 2^-12 relative each, ≤ 7.4e-4 together); unpremultiplying divides
//   two such values (twice that), and sRGB encoding scales relative error by
//   ≤ 1/2.4 above its linear toe. Values are ≤ 1, so relative bounds absolute;
//   3e-3 leaves about 2× margin.
// - working RGBA32F: 2e-5 plus 1.2e-7 per tap and pass: float accumulation of
//   2·radius+1 products (≤ 6e-8 relative each), pow() in the sRGB curves.
// - near zero, half precision has an absolute step of 2^-24 (subnormals), not
//   a relative one: RGBA16F adds 3·2^-24 per value, divided by alpha where
//   straight alpha is recovered and times 12.92 (the sRGB toe's slope). This
//   matters only for tiny alphas (a 1×1 image blurred with radius 300 and
//   border zero keeps 7e-6 of its alpha).
// - plus the output format's own rounding: half an LSB for RGBA8/RGBA16,
//   2^-11 relative for RGBA16F, nothing for RGBA32F.
#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "tests/support/gpu_env.h"
#include "tests/support/reference.h"

namespace rgfx {
namespace {

using graph::AlphaMode;
using graph::ColorSpace;
using graph::PixelFormat;
using testing::Bytes;
using testing::ImageD;

struct BlurCase {
  int width = 17;
  int height = 9;
  int radius = 5;
  std::optional<double> sigma;
  std::string border = "clamp";
  std::string axes = "both";
  PixelFormat format = PixelFormat::kRgba8;
  ColorSpace color = ColorSpace::kSrgb;
  AlphaMode alpha = AlphaMode::kStraight;
  PixelFormat working = PixelFormat::kRgba16F;
  // These suites test the reference variant; blur_variants_test.cc the others.
  std::string variant = "exact";

  std::string Name() const {
    return absl::StrCat(width, "x", height, " r=", radius, " sigma=", sigma.value_or(-1), " ",
                        border, " ", axes, " ", std::string(graph::PixelFormatName(format)), " ",
                        std::string(graph::ColorSpaceName(color)), " ",
                        std::string(graph::AlphaModeName(alpha)),
                        " working=", std::string(graph::PixelFormatName(working)));
  }
};

graph::GraphDesc BlurGraph(const BlurCase& c) {
  graph::GraphDesc desc;
  desc.working_format = c.working;
  desc.inputs.push_back({"image", {uint32_t(c.width), uint32_t(c.height)}, c.format, c.color, c.alpha});
  graph::PassDesc blur{"blur", "gaussian_blur", {"image"}, {"soft"}, {}};
  blur.params.Set("radius", int64_t{c.radius});
  if (c.sigma) blur.params.Set("sigma", *c.sigma);
  blur.params.Set("border", c.border);
  blur.params.Set("axes", c.axes);
  blur.params.Set("variant", c.variant);
  desc.passes.push_back(blur);
  desc.outputs.push_back({"soft", c.format, c.color, c.alpha});
  return desc;
}

ImageD Reference(const BlurCase& c, const Bytes& input) {
  const bool srgb = c.color == ColorSpace::kSrgb;
  const bool straight = c.alpha == AlphaMode::kStraight;
  const double sigma = c.sigma.value_or(c.radius / 2.0);
  const auto border = testing::ParseBorder(c.border);
  ImageD img = testing::ToWorking(testing::DecodeClient(input, c.width, c.height, c.format), srgb,
                                  straight);
  if (c.axes != "vertical") img = testing::BlurAxis(img, c.radius, sigma, border, true);
  if (c.axes != "horizontal") img = testing::BlurAxis(img, c.radius, sigma, border, false);
  return testing::FromWorking(img, srgb, straight);
}

// `alpha` is the reference's premultiplied alpha of the pixel; `is_alpha`
// whether the value is that alpha itself (never divided).
double Tolerance(const BlurCase& c, double expected, double alpha, bool is_alpha) {
  const int passes = c.axes == "both" ? 2 : 1;
  double tol = 2e-5 + 1.2e-7 * passes * (2 * c.radius + 1);
  if (c.working == PixelFormat::kRgba16F) {
    double near_zero = 3 * std::ldexp(1.0, -24);
    if (!is_alpha && c.alpha == AlphaMode::kStraight) near_zero /= std::max(alpha, 1e-12);
    if (!is_alpha && c.color == ColorSpace::kSrgb) near_zero *= 12.92;
    tol = 3e-3 + near_zero;
  }
  switch (c.format) {
    case PixelFormat::kRgba8:
      return tol + 0.5 / 255;
    case PixelFormat::kRgba16:
      return tol + 0.5 / 65535;
    case PixelFormat::kRgba16F:
      return tol + std::abs(expected) * std::ldexp(1.0, -11);
    case PixelFormat::kRgba32F:
      return tol;
  }
  return tol;
}

// Runs one case on a random image and compares every channel of every pixel.
void CheckBlur(const BlurCase& c, uint32_t seed) {
  SCOPED_TRACE(c.Name());
  std::mt19937 rng(seed);
  const Bytes input = testing::RandomClientImage(c.width, c.height, c.format,
                                                 c.alpha == AlphaMode::kPremultiplied, rng);
  auto run = testing::RunGraph(BlurGraph(c), {input});
  ASSERT_TRUE(run.ok()) << run.status();
  const ImageD got = testing::DecodeClient(run->outputs[0], c.width, c.height, c.format);
  ImageD want = Reference(c, input);
  const bool unorm = c.format == PixelFormat::kRgba8 || c.format == PixelFormat::kRgba16;
  int failures = 0;
  double worst = 0;
  for (size_t i = 0; i < want.v.size(); ++i) {
    const double expected = unorm ? std::clamp(want.v[i], 0.0, 1.0) : want.v[i];
    const double error = std::abs(got.v[i] - expected);
    const double tolerance = Tolerance(c, expected, want.v[i / 4 * 4 + 3], i % 4 == 3);
    worst = std::max(worst, error);
    if (!(error <= tolerance) && ++failures <= 5) {
      const size_t px = i / 4;
      ADD_FAILURE() << "pixel (" << px % c.width << ", " << px / c.width << ") channel " << i % 4
                    << ": got " << got.v[i] << ", want " << expected << " (error " << error
                    << ", tolerance " << tolerance << ")";
    }
  }
  EXPECT_EQ(failures, 0) << "worst error " << worst;
}

class GaussianBlurTest : public testing::GpuTest {};

TEST_F(GaussianBlurTest, MatchesReferenceForEverySizeRadiusAndBorder) {
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {17, 9}, {257, 131}};
  uint32_t seed = 1;
  for (auto [w, h] : sizes) {
    for (int radius : {0, 1, 2, 5, 64, 300}) {
      for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
        BlurCase c;
        c.width = w;
        c.height = h;
        c.radius = radius;
        c.border = border;
        CheckBlur(c, seed++);
      }
    }
  }
}

TEST_F(GaussianBlurTest, MatchesReferenceOnALargeImage) {
  for (const char* border : {"clamp", "mirror", "zero"}) {
    for (int radius : {5, 64}) {
      BlurCase c;
      c.width = 1031;
      c.height = 771;
      c.radius = radius;
      c.border = border;
      CheckBlur(c, 100 + radius);
    }
  }
}

TEST_F(GaussianBlurTest, MatchesReferenceForEveryFormatColorSpaceAlphaAndWorkingFormat) {
  uint32_t seed = 200;
  int border = 0;
  for (PixelFormat format : {PixelFormat::kRgba8, PixelFormat::kRgba16, PixelFormat::kRgba16F,
                             PixelFormat::kRgba32F}) {
    for (ColorSpace color : {ColorSpace::kSrgb, ColorSpace::kLinear}) {
      for (AlphaMode alpha : {AlphaMode::kStraight, AlphaMode::kPremultiplied}) {
        for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
          for (int radius : {0, 5}) {
            BlurCase c;
            c.width = 65;
            c.height = 33;
            c.radius = radius;
            c.format = format;
            c.color = color;
            c.alpha = alpha;
            c.working = working;
            c.border = std::vector<std::string>{"clamp", "mirror", "wrap", "zero"}[border++ % 4];
            CheckBlur(c, seed++);
          }
        }
      }
    }
  }
}

TEST_F(GaussianBlurTest, SingleAxisAndExplicitSigma) {
  for (const char* axes : {"horizontal", "vertical"}) {
    BlurCase c;
    c.axes = axes;
    c.radius = 7;
    CheckBlur(c, 300);
  }
  BlurCase c;
  c.radius = 10;
  c.sigma = 1.5;
  c.working = PixelFormat::kRgba32F;
  c.format = PixelFormat::kRgba32F;
  c.color = ColorSpace::kLinear;
  CheckBlur(c, 301);
}

TEST_F(GaussianBlurTest, RadiusLargerThanTheImage) {
  for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
    BlurCase c;
    c.width = 37;
    c.height = 29;
    c.radius = 1024;
    c.border = border;
    c.working = PixelFormat::kRgba32F;
    CheckBlur(c, 400);
  }
}

TEST_F(GaussianBlurTest, LinesOf16384Pixels) {
  BlurCase wide;
  wide.width = 16384;
  wide.height = 3;
  wide.radius = 64;
  wide.border = "mirror";
  CheckBlur(wide, 500);
  BlurCase tall;
  tall.width = 3;
  tall.height = 16384;
  tall.radius = 64;
  tall.border = "wrap";
  CheckBlur(tall, 501);
}

TEST_F(GaussianBlurTest, ConstantImageStaysConstant) {
  for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    for (const char* border : {"clamp", "mirror", "wrap"}) {
      for (int radius : {1, 5, 64}) {
        BlurCase c;
        c.width = 33;
        c.height = 17;
        c.radius = radius;
        c.border = border;
        c.working = working;
        SCOPED_TRACE(c.Name());
        Bytes input(33 * 17 * 4);
        for (size_t i = 0; i < input.size(); ++i) {
          input[i] = std::byte(i % 4 == 3 ? 200 : 90 + 40 * (i % 4));
        }
        auto run = testing::RunGraph(BlurGraph(c), {input});
        ASSERT_TRUE(run.ok()) << run.status();
        EXPECT_EQ(run->outputs[0], input);
      }
    }
  }
}

TEST_F(GaussianBlurTest, RadiusZeroIsTheIdentityForEightBitImages) {
  std::mt19937 rng(600);
  for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    for (AlphaMode alpha : {AlphaMode::kStraight, AlphaMode::kPremultiplied}) {
      BlurCase c;
      c.width = 61;
      c.height = 7;
      c.radius = 0;
      c.alpha = alpha;
      c.working = working;
      SCOPED_TRACE(c.Name());
      Bytes input = testing::RandomClientImage(c.width, c.height, c.format,
                                               alpha == AlphaMode::kPremultiplied, rng);
      // Straight colour under alpha 0 cannot survive premultiplication.
      for (size_t px = 0; px < input.size() / 4; ++px) {
        if (input[4 * px + 3] == std::byte{0}) input[4 * px + 3] = std::byte{1};
      }
      auto run = testing::RunGraph(BlurGraph(c), {input});
      ASSERT_TRUE(run.ok()) << run.status();
      EXPECT_EQ(run->outputs[0], input);
    }
  }
}

TEST_F(GaussianBlurTest, EveryExecutedPassHasAPositiveGpuTimeAndCulledPassesNone) {
  graph::GraphDesc desc = BlurGraph(BlurCase{});
  graph::PassDesc unused{"unused", "gaussian_blur", {"image"}, {"nobody_reads_this"}, {}};
  unused.params.Set("radius", int64_t{3});
  desc.passes.push_back(unused);
  Bytes input(17 * 9 * 4, std::byte{128});
  auto run = testing::RunGraph(desc, {input});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_TRUE(testing::SharedGpu().device->caps().timestamps_supported)
      << "the test device must have timestamps";
  std::vector<std::string> names;
  for (const auto& pass : run->timings.passes) {
    names.push_back(pass.pass);
    ASSERT_TRUE(pass.gpu_ns.has_value()) << pass.pass;
    EXPECT_GT(*pass.gpu_ns, 0u) << pass.pass;
    for (const auto& step : pass.steps) {
      ASSERT_TRUE(step.gpu_ns.has_value());
      EXPECT_GT(*step.gpu_ns, 0u) << pass.pass << " " << step.label;
    }
  }
  EXPECT_THAT(names, ::testing::ElementsAre("import:image", "blur", "export:soft"));
  EXPECT_EQ(run->compiled->stats.passes_culled, 1);
  EXPECT_EQ(run->timings.passes[1].variant, "exact");
  ASSERT_EQ(run->timings.passes[1].steps.size(), 2u);
  EXPECT_EQ(run->timings.passes[1].steps[0].label, "horizontal");
}

// Repetitions in one submission (for steady GPU clocks in benchmarks) give
// the same pixels, a timing per pass, and need a barrier between them that
// synchronization validation checks.
TEST_F(GaussianBlurTest, RepeatsInOneSubmissionGiveTheSameOutput) {
  BlurCase c;
  c.width = 45;
  c.height = 23;
  c.radius = 9;
  std::mt19937 rng(700);
  const Bytes input = testing::RandomClientImage(c.width, c.height, c.format, false, rng);
  auto once = testing::RunGraph(BlurGraph(c), {input});
  auto repeated = testing::RunGraph(BlurGraph(c), {input}, 7);
  ASSERT_TRUE(once.ok() && repeated.ok());
  EXPECT_EQ(repeated->outputs, once->outputs);
  EXPECT_EQ(repeated->timings.repeats, 7);
  ASSERT_EQ(repeated->timings.passes.size(), 3u);
  for (const auto& pass : repeated->timings.passes) {
    ASSERT_TRUE(pass.gpu_ns.has_value());
    EXPECT_GT(*pass.gpu_ns, 0u) << pass.pass;
  }
}

TEST_F(GaussianBlurTest, RepeatedRunsAllocateNoVulkanMemory) {
  BlurCase c;
  c.width = 129;
  c.height = 67;
  Bytes input(129 * 67 * 4, std::byte{77});
  ASSERT_TRUE(testing::RunGraph(BlurGraph(c), {input}).ok());
  const uint64_t before = testing::SharedGpu().executor->vulkan_allocations();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(testing::RunGraph(BlurGraph(c), {input}).ok());
  EXPECT_EQ(testing::SharedGpu().executor->vulkan_allocations(), before);
}

}  // namespace
}  // namespace rgfx
