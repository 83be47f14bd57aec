// large_radius on lavapipe, both methods:
// - the recursive path (a damped cosine as a complex first-order recursion,
//   shaders/gaussian_blur_recursive.comp) against a double-precision
//   convolution with the kernel it applies (RecursiveFit::Kernel), on
//   random odd sizes, every border, both formats, one or both axes. RGBA16F
//   1.5e-3 as below; RGBA32F 2e-5 plus, per pass and recursion, 8 ulp of
//   the largest state (Σ|p|^k for values <= 1) times |c|, times the square
//   root of the steps an error lives (1 / (1 − |p|), at most the line),
//   times |p|^-16 (the backward recursion runs forwards through 1/p within
//   each chunk of 16).
// - the box stack (LargeRadiusTest forces it with SetLargeRadiusBoxesOnly),
//   both paths: fused (one dispatch per axis, prefix sums in shared memory;
//   lines that fit, which is every line here but the 5001-pixel ones) and
//   two dispatches through a temporary (those). Each check names the path
//   it expects per axis and fails if the plan chose the other.
// - against a double-precision CPU convolution with the same staircase
//   kernel (BoxStack::Kernel), on random odd sizes, radii up to far beyond
//   the image, every border, both working formats: this checks the prefix
//   sums, the closed-form borders and the box arithmetic. Tolerances, in
//   normalised units (values in [0, 1]):
//   * working RGBA16F: 1.5e-3, as for the exact variants (import, the
//     intermediate and the result each rounded to half: ≤ 7.4e-4 together).
//   * working RGBA32F: 2e-5 plus, per pass, 4 ulp of the largest prefix sum
//     the boxes difference (3n + 2R for values ≤ 1: mirror doubles the line's
//     total, clamp adds R edge pixels) times Σ coeff_i (each box sum is a
//     difference of two sums each within about an ulp, the Kahan scan adds
//     less than another, and box i is weighted by coeff_i).
// - a plan whose axes take different methods (lines too long for the
//   recursion on one axis): against the pair of kernels.
// - against the exact blur: the PSNR the plan states on uniform noise, and
//   ≥ 50 dB on a photograph-like 8-bit image, radii 16..1024 (mixed plans
//   16 and 64).
#include "passes/blur_variants/large_radius.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "passes/blur_variants/recursive_fit.h"
#include "passes/gaussian_blur.h"
#include "passes/gaussian_weights.h"
#include "passes/image_metrics.h"
#include "tests/support/gpu_env.h"
#include "tests/support/reference.h"

namespace rgfx {
namespace {

using graph::PixelFormat;
using testing::Bytes;
using testing::ImageD;

struct Case {
  std::string variant = "large_radius";
  int width = 37, height = 29, radius = 64;
  std::string border = "clamp";
  std::string axes = "both";
  PixelFormat working = PixelFormat::kRgba16F;
  // The path each axis must take ("fused" or "two dispatches"); "" for any.
  std::string horizontal_path, vertical_path;
  // Text each of those axes' step details must contain; "" for any.
  std::string horizontal_detail, vertical_detail;
  double sigma() const { return radius / 2.0; }
  std::string Name() const {
    return absl::StrCat(variant, " ", width, "x", height, " r=", radius, " ", border, " ", axes,
                        " working=", std::string(graph::PixelFormatName(working)));
  }
};

graph::GraphDesc Graph(const Case& c) {
  graph::GraphDesc desc;
  desc.working_format = c.working;
  desc.inputs.push_back({"image", {uint32_t(c.width), uint32_t(c.height)}, PixelFormat::kRgba32F,
                         graph::ColorSpace::kLinear, graph::AlphaMode::kPremultiplied});
  graph::PassDesc blur{"blur", "gaussian_blur", {"image"}, {"soft"}, {}};
  blur.params.Set("radius", int64_t{c.radius});
  blur.params.Set("border", c.border);
  blur.params.Set("axes", c.axes);
  blur.params.Set("variant", c.variant);
  desc.passes.push_back(blur);
  desc.outputs.push_back({"soft", PixelFormat::kRgba32F, graph::ColorSpace::kLinear,
                          graph::AlphaMode::kPremultiplied});
  return desc;
}

// One axis of a symmetric kernel (taps 0..R), in double.
ImageD Convolve(const ImageD& in, const std::vector<double>& half, testing::Border border,
                bool horizontal) {
  ImageD out{in.width, in.height, std::vector<double>(in.v.size())};
  const int radius = static_cast<int>(half.size()) - 1;
  const int n = horizontal ? in.width : in.height;
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      for (int c = 0; c < 4; ++c) {
        double sum = 0;
        for (int k = -radius; k <= radius; ++k) {
          const int i = testing::BorderIndex((horizontal ? x : y) + k, n, border);
          if (i < 0) continue;
          sum += half[std::abs(k)] * (horizontal ? in.at(i, y, c) : in.at(x, i, c));
        }
        out.at(x, y, c) = sum;
      }
    }
  }
  return out;
}

Bytes Noise(int width, int height, std::mt19937& rng) {
  ImageD image{width, height, std::vector<double>(size_t(width) * height * 4)};
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double& v : image.v) v = u(rng);
  return testing::EncodeClient(image, PixelFormat::kRgba32F);
}

// Fails unless the axis `label` ran the path `path` (a prefix of the step's
// details, see large_radius.cc).
// and its details contain `detail`.
void ExpectPath(const std::vector<std::string>& details, const std::string& label,
                const std::string& path, const std::string& detail) {
  if (path.empty() && detail.empty()) return;
  bool found = false;
  for (const std::string& d : details) {
    if (d.starts_with(label + ": ")) {
      found = true;
      EXPECT_TRUE(d.starts_with(label + ": " + path)) << d;
      EXPECT_NE(d.find(detail), std::string::npos) << d;
    }
  }
  EXPECT_TRUE(found) << label << " step missing";
}

ImageD RunBlur(const Case& c, const Bytes& input) {
  auto run = testing::RunGraph(Graph(c), {input});
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return {};
  EXPECT_EQ(run->timings.passes[1].variant, c.variant);
  for (const graph::CompiledPass& pass : run->compiled->passes) {
    if (pass.name != "blur") continue;
    const std::vector<std::string> details = passes::BlurStepDetails(pass.plan);
    if (c.axes != "vertical") {
      ExpectPath(details, "horizontal", c.horizontal_path, c.horizontal_detail);
    }
    if (c.axes != "horizontal") {
      ExpectPath(details, "vertical", c.vertical_path, c.vertical_detail);
    }
  }
  return testing::DecodeClient(run->outputs[0], c.width, c.height, PixelFormat::kRgba32F);
}

double Tolerance(const Case& c, const passes::BoxStack& stack) {
  if (c.working == PixelFormat::kRgba16F) return 1.5e-3;
  const int n = std::max(c.width, c.height);
  const double magnitude = std::max(1, 3 * n + 2 * c.radius);
  const double ulp = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(magnitude))) - 23);
  double coeffs = 0;
  for (double x : stack.coeffs) coeffs += std::abs(x);
  return 2e-5 + (c.axes == "both" ? 2 : 1) * 4 * ulp * coeffs;
}

double RecursiveTolerance(const Case& c, const passes::RecursiveFit& fit) {
  if (c.working == PixelFormat::kRgba16F) return 1.5e-3;
  const double decay = std::abs(fit.pole);
  const double magnitude = (1 - std::pow(decay, c.radius + 1)) / (1 - decay);
  const double ulp = std::ldexp(1.0, static_cast<int>(std::floor(std::log2(magnitude))) - 23);
  const double steps =
      std::min(double(std::max(c.width, c.height) + 2 * (c.radius + 1)), 1 / (1 - decay));
  // w's errors grow by up to |p|^-chunk within a chunk (it runs through
  // 1/p), chunks of up to RecursiveMaxChunk() px.
  const double growth = std::pow(decay, -double(passes::RecursiveMaxChunk()));
  return 2e-5 + (c.axes == "both" ? 2 : 1) * 2 * 8 * ulp * std::abs(fit.coefficient) *
                    std::sqrt(steps) * growth;
}

// The blur of random noise against a double-precision convolution with
// `rows` along rows and `columns` along columns (half kernels, taps
// 0..radius).
void CheckAgainstKernels(const Case& c, uint32_t seed, const std::vector<double>& rows,
                         const std::vector<double>& columns, double tolerance) {
  std::mt19937 rng(seed);
  const Bytes input = Noise(c.width, c.height, rng);
  const ImageD got = RunBlur(c, input);
  ASSERT_EQ(got.v.size(), size_t(c.width) * c.height * 4);
  const auto border = testing::ParseBorder(c.border);
  ImageD want = testing::DecodeClient(input, c.width, c.height, PixelFormat::kRgba32F);
  if (c.axes != "vertical") want = Convolve(want, rows, border, true);
  if (c.axes != "horizontal") want = Convolve(want, columns, border, false);
  int failures = 0;
  double worst = 0;
  for (size_t i = 0; i < want.v.size(); ++i) {
    const double error = std::abs(got.v[i] - want.v[i]);
    worst = std::max(worst, error);
    if (!(error <= tolerance) && ++failures <= 5) {
      const size_t px = i / 4;
      ADD_FAILURE() << "pixel (" << px % c.width << ", " << px / c.width << ") channel " << i % 4
                    << ": got " << got.v[i] << ", want " << want.v[i] << " (tolerance "
                    << tolerance << ")";
    }
  }
  EXPECT_EQ(failures, 0) << "worst error " << worst << " (tolerance " << tolerance << ")";
}

void CheckAgainstStaircase(const Case& c, uint32_t seed) {
  SCOPED_TRACE(c.Name());
  const passes::BoxStack stack = passes::ChooseBoxStack(c.radius, c.sigma());
  const std::vector<double> kernel = stack.Kernel(c.radius);
  CheckAgainstKernels(c, seed, kernel, kernel, Tolerance(c, stack));
}

void CheckAgainstRecursion(const Case& c, uint32_t seed) {
  SCOPED_TRACE(c.Name());
  const passes::RecursiveFit fit = passes::FitRecursiveGaussian(c.radius, c.sigma());
  const std::vector<double> kernel = fit.Kernel(c.radius);
  CheckAgainstKernels(c, seed, kernel, kernel, RecursiveTolerance(c, fit));
}

// The box stack's paths: every plan made in these tests uses it.
class LargeRadiusTest : public testing::GpuTest {
 protected:
  void SetUp() override {
    testing::GpuTest::SetUp();
    passes::SetLargeRadiusBoxesOnly(true);
  }
  void TearDown() override {
    passes::SetLargeRadiusBoxesOnly(false);
    testing::GpuTest::TearDown();
  }
};

// The plan as the server makes it: recursive where it can run.
class LargeRadiusRecursiveTest : public testing::GpuTest {};

// Sizes from one pixel up, each radius and border, the working format
// alternating; every axis must take `path`.
void CheckGrid(const std::vector<int>& radii, const std::string& path, uint32_t seed,
               void (*check)(const Case&, uint32_t)) {
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {37, 29}, {131, 67}};
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  for (auto [w, h] : sizes) {
    for (int radius : radii) {
      for (int b = 0; b < 4; ++b) {
        Case c;
        c.width = w;
        c.height = h;
        c.radius = radius;
        c.border = borders[b];
        c.working = (b + radius) % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
        c.horizontal_path = path;
        c.vertical_path = path;
        check(c, seed++);
      }
    }
  }
}

// A flat image stays flat (the weights sum to 1, borders included).
void CheckConstantImage(const std::vector<int>& radii, const std::string& path,
                        double tolerance) {
  for (const char* border : {"clamp", "mirror", "wrap"}) {
    for (int radius : radii) {
      Case c;
      c.width = 33;
      c.height = 17;
      c.radius = radius;
      c.border = border;
      c.working = PixelFormat::kRgba32F;
      c.horizontal_path = path;
      c.vertical_path = path;
      SCOPED_TRACE(c.Name());
      ImageD flat{33, 17, std::vector<double>(33 * 17 * 4)};
      for (size_t i = 0; i < flat.v.size(); ++i) flat.v[i] = 0.25 + 0.125 * (i % 4);
      const ImageD got = RunBlur(c, testing::EncodeClient(flat, PixelFormat::kRgba32F));
      ASSERT_EQ(got.v.size(), flat.v.size());
      for (size_t i = 0; i < flat.v.size(); ++i) ASSERT_NEAR(got.v[i], flat.v[i], tolerance) << i;
    }
  }
}

TEST_F(LargeRadiusRecursiveTest, MatchesItsRecursionForEverySizeRadiusBorderAndFormat) {
  CheckGrid({8, 16, 64, 300, 1024}, "recursive", 500, CheckAgainstRecursion);
}

// Random odd sizes: rows of several workgroups' lines, strips of columns,
// partial strips at the edge (of the temporary too), lines of several subgroups of chunks; one or
// both axes; sigma other than radius / 2 through the radius's shape.
TEST_F(LargeRadiusRecursiveTest, MatchesItsRecursionOnRandomOddSizes) {
  std::mt19937 rng(2027);
  std::uniform_int_distribution<int> half_width(4, 260), half_height(4, 120);
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  const char* const axes[] = {"both", "horizontal", "vertical"};
  int count = 0;
  for (int radius : {9, 33, 128, 500}) {
    for (int b = 0; b < 4; ++b) {
      Case c;
      c.width = 2 * half_width(rng) + 1;
      c.height = 2 * half_height(rng) + 1;
      c.radius = radius;
      c.border = borders[b];
      c.working = count % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
      c.axes = axes[count++ % 3];
      c.horizontal_path = "recursive";
      c.vertical_path = "recursive";
      // RGBA32F on both axes: the temporary in strips of the columns a
      // workgroup, the odd width's last strip half full.
      if (c.axes == "both" && c.working == PixelFormat::kRgba32F) {
        c.vertical_detail = "loads the temporary in strips of 2 columns";
      }
      CheckAgainstRecursion(c, rng());
    }
  }
}

// A measurement's strips of 4 columns (SetLargeRadiusStripTemporary), wider
// than the column workgroups' 2, in both formats: each workgroup reads half
// of each strip's row, odd widths leave the last strip partly empty.
TEST_F(LargeRadiusRecursiveTest, StripsOfFourColumnsMatchTheRecursion) {
  struct Reset {
    ~Reset() { passes::SetLargeRadiusStripTemporary(1); }
  } reset;
  passes::SetLargeRadiusStripTemporary(4);
  std::mt19937 rng(2028);
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  int count = 0;
  for (const auto& [w, h, radius] : {std::tuple{45, 37, 9}, std::tuple{131, 67, 64},
                                     std::tuple{203, 29, 33}, std::tuple{17, 95, 128}}) {
    for (const PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
      Case c;
      c.width = w;
      c.height = h;
      c.radius = radius;
      c.border = borders[count++ % 4];
      c.working = working;
      c.horizontal_path = "recursive";
      c.vertical_path = "recursive";
      c.horizontal_detail = "stores the temporary in strips of 4 columns";
      c.vertical_detail = "loads the temporary in strips of 4 columns";
      CheckAgainstRecursion(c, rng());
    }
  }
}

// Lines that fit shared memory but not with their margins (radius + 1
// pixels more at each end, more for mirror and wrap): clamp and zero keep
// one pixel at each end and clamp their reads to it; mirror and wrap run
// the pipeline whose reads check and map through the border (the other
// tests' short lines hold margins).
TEST_F(LargeRadiusRecursiveTest, LinesWhoseMarginsDoNotFitTakeClampedOrCheckedReads) {
  const uint32_t shared = testing::SharedGpu().device->caps().max_compute_shared_memory_bytes;
  // RGBA32F: 16 bytes a pixel, plus one spare per chunk (at most 16 px).
  const int row = static_cast<int>(shared * 0.7 / (16 * 17.0 / 15));
  const int column = row / 2;  // two columns a workgroup
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  for (int b = 0; b < 4; ++b) {
    for (const bool vertical : {false, true}) {
      Case c;
      c.width = vertical ? 45 : row | 1;
      c.height = vertical ? column | 1 : 45;
      c.radius = std::max(row, column) / 2;
      c.border = borders[b];
      c.working = PixelFormat::kRgba32F;
      c.horizontal_path = c.vertical_path = "recursive";
      const bool extended = c.border == "mirror" || c.border == "wrap";
      (vertical ? c.vertical_detail : c.horizontal_detail) =
          extended ? "without margins" : "reads clamped";
      CheckAgainstRecursion(c, 7000 + b * 2 + vertical);
    }
  }
}

// A clamp or zero row whose strip holds the line but not one more pixel at
// each end (a few lengths just below what shared memory holds) runs the
// pipeline whose reads clamp to the line and select zeros.
TEST_F(LargeRadiusRecursiveTest, LinesWithoutRoomForOnePixelMoreTakeCheckedReads) {
  const auto& caps = testing::SharedGpu().device->caps();
  const int rows = 45, radius = 600;
  // The longest RGBA32F row (16 bytes a pixel) that the plan runs
  // recursive without margins, found through the plan's own rule.
  int width = 0;
  for (uint32_t n = caps.max_compute_shared_memory_bytes / 16; n > 1000 && width == 0; --n) {
    const passes::RecursiveGeometry g = passes::ChooseRecursiveGeometry(
        n, rows, false, 0, radius + 1, 16, caps.max_compute_shared_memory_bytes,
        caps.max_workgroup_invocations, caps.subgroup_size);
    if (g.lines_per_group == 1 && g.margin == 0) width = static_cast<int>(n);
  }
  ASSERT_NE(width, 0) << "no row length between the fitting and the margined ones";
  for (const char* border : {"clamp", "zero"}) {
    Case c;
    c.width = width;
    c.height = rows;
    c.radius = radius;
    c.border = border;
    c.axes = "horizontal";
    c.working = PixelFormat::kRgba32F;
    c.horizontal_path = "recursive";
    c.horizontal_detail = "without margins";
    CheckAgainstRecursion(c, 7200 + (c.border == "zero"));
  }
}

// Rows too long for whole pixels in shared memory run two channels a
// workgroup (red and green, blue and alpha): every border, both formats,
// one axis and both.
TEST_F(LargeRadiusRecursiveTest, LongRowsRunTwoChannelsAWorkgroup) {
  const uint32_t shared = testing::SharedGpu().device->caps().max_compute_shared_memory_bytes;
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  int count = 0;
  for (int b = 0; b < 4; ++b) {
    for (const PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
      // Whole pixels (8 or 16 bytes and a spare slot per chunk) take
      // ~1.4x the shared memory, two channels ~0.7x.
      const int pixel_bytes = working == PixelFormat::kRgba32F ? 16 : 8;
      Case c;
      c.width = (static_cast<int>(shared) * 4 / 3 / pixel_bytes) | 1;
      c.height = 5 + 2 * b;
      c.radius = 40;
      c.border = borders[b];
      c.working = working;
      c.axes = count++ % 2 ? "both" : "horizontal";
      c.horizontal_path = c.vertical_path = "recursive";
      c.horizontal_detail = "two channels";
      CheckAgainstRecursion(c, 7100 + count);
    }
  }
}

// The same long rows at a radius whose margins (1025 px at each end) do
// not fit beside them: clamp and zero clamp their reads to one pixel at
// each end, mirror and wrap check them. Only two channels a workgroup
// can run these rows recursively at all, so the path implies them.
TEST_F(LargeRadiusRecursiveTest, LongRowsOnTwoChannelsWithoutRoomForMargins) {
  const uint32_t shared = testing::SharedGpu().device->caps().max_compute_shared_memory_bytes;
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  for (int b = 0; b < 4; ++b) {
    Case c;
    c.width = (static_cast<int>(shared) * 4 / 3 / 16) | 1;
    c.height = 3;
    c.radius = 1024;
    c.border = borders[b];
    c.working = PixelFormat::kRgba32F;
    c.axes = "horizontal";
    c.horizontal_path = "recursive";
    const bool extended = c.border == "mirror" || c.border == "wrap";
    c.horizontal_detail = extended ? "without margins" : "reads clamped";
    CheckAgainstRecursion(c, 7300 + b);
  }
}

// Chunks of up to 17 px (what rgfx-gpu-bench --large_radius_max_chunk
// measures): 1081-row columns in 64 chunks of 17, 257-px rows within the
// cap too (with subgroups of 8, 16 chunks of 17: the rounded length would
// need 20), against the recursion.
TEST_F(LargeRadiusRecursiveTest, AnotherChunkCapMatchesTheRecursion) {
  struct Cap {
    Cap() { passes::SetLargeRadiusMaxChunk(17); }
    ~Cap() { passes::SetLargeRadiusMaxChunk(0); }
  } cap;
  const char* const borders[] = {"clamp", "zero"};
  for (int b = 0; b < 2; ++b) {
    Case c;
    c.width = 257;
    c.height = 1081;
    c.border = borders[b];
    c.working = b ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
    c.horizontal_path = c.vertical_path = "recursive";
    c.vertical_detail = "chunks of 17 px";
    CheckAgainstRecursion(c, 7400 + b);
  }
}

TEST_F(LargeRadiusRecursiveTest, ConstantImageStaysConstant) {
  CheckConstantImage({8, 200, 3000}, "recursive", 5e-5);
}

// Each axis takes its own method: lines too long for the recursion in
// shared memory (columns, which never run two channels, or rows too long
// even for two) take the box stack while the other axis runs the
// recursion. Tall and wide images, every border, both formats, against
// the pair of kernels; the tolerance is the two single-axis ones added.
TEST_F(LargeRadiusRecursiveTest, AnAxisWhoseLinesDoNotFitTakesTheBoxStack) {
  const uint32_t shared = testing::SharedGpu().device->caps().max_compute_shared_memory_bytes;
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  uint32_t seed = 7200;
  for (int b = 0; b < 4; ++b) {
    for (const PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
      const int pixel_bytes = working == PixelFormat::kRgba32F ? 16 : 8;
      for (const bool tall : {true, false}) {
        // Columns of whole pixels, or rows of two channels, ~1.1x the
        // shared memory.
        const int long_side =
            (static_cast<int>(shared) * 11 / 10 / (tall ? pixel_bytes : pixel_bytes / 2)) | 1;
        Case c;
        c.width = tall ? 45 : long_side;
        c.height = tall ? long_side : 5 + 2 * b;
        c.radius = b % 2 ? 300 : 40;
        c.border = borders[b];
        c.working = working;
        c.horizontal_path = tall ? "recursive" : "two dispatches";
        c.vertical_path = tall ? "two dispatches" : "recursive";
        SCOPED_TRACE(c.Name());
        const passes::RecursiveFit fit = passes::FitRecursiveGaussian(c.radius, c.sigma());
        const passes::BoxStack stack = passes::ChooseBoxStack(c.radius, c.sigma());
        Case one_axis = c;
        one_axis.axes = "horizontal";
        const double tolerance = c.working == PixelFormat::kRgba16F
                                     ? 1.5e-3
                                     : RecursiveTolerance(one_axis, fit) +
                                           Tolerance(one_axis, stack);
        const std::vector<double> recursive = fit.Kernel(c.radius);
        const std::vector<double> staircase = stack.Kernel(c.radius);
        CheckAgainstKernels(c, seed++, tall ? recursive : staircase,
                            tall ? staircase : recursive, tolerance);
      }
    }
  }
}

TEST_F(LargeRadiusTest, MatchesItsBoxStackForEverySizeRadiusBorderAndFormat) {
  CheckGrid({0, 1, 5, 16, 64, 300, 1024}, "fused", 1, CheckAgainstStaircase);
}

TEST_F(LargeRadiusTest, SingleAxesAndLongLines) {
  for (const char* axes : {"horizontal", "vertical"}) {
    for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
      Case c;
      c.width = 53;
      c.height = 41;
      c.radius = 20;
      c.axes = axes;
      c.border = border;
      c.working = PixelFormat::kRgba32F;
      CheckAgainstStaircase(c, 70);
    }
  }
}

// Lines of 5001 pixels (80 KB of sums) fit no shared memory lavapipe or an
// H100 offers: that axis takes the two-dispatch path, the other (3 pixels)
// the fused one, so this also checks a plan mixing both paths. Many prefix
// segments, sums up to ~5000.
TEST_F(LargeRadiusTest, LinesTooLongForSharedMemoryTakeTheTwoDispatchPath) {
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  uint32_t seed = 71;
  for (int b = 0; b < 4; ++b) {
    for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
      Case wide;
      wide.width = 5001;
      wide.height = 3;
      wide.radius = b % 2 ? 700 : 40;
      wide.border = borders[b];
      wide.working = working;
      wide.horizontal_path = "two dispatches";
      wide.vertical_path = "fused";
      CheckAgainstStaircase(wide, seed++);
      Case tall = wide;
      tall.width = 3;
      tall.height = 5001;
      tall.horizontal_path = "fused";
      tall.vertical_path = "two dispatches";
      CheckAgainstStaircase(tall, seed++);
    }
  }
}

// At the edge of the device's shared memory: the longest line the plan
// fuses runs fused (its workgroup's shared memory is what the plan
// computed: the validation layer checks it against the device's limit), one
// pixel more takes the two-dispatch path. Rows and columns, both formats.
TEST_F(LargeRadiusTest, LongestFusedLineAndOneMore) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  uint32_t longest = 1;
  const uint32_t subgroup = caps.subgroup_shuffle_relative ? caps.subgroup_size : 0;
  while (passes::ChooseFusedGeometry(longest + 1, 1, caps.max_compute_shared_memory_bytes,
                                     caps.max_workgroup_invocations, subgroup)
             .lines_per_group != 0) {
    ++longest;
  }
  std::printf("shared memory %u bytes: lines up to %u px fuse\n",
              caps.max_compute_shared_memory_bytes, longest);
  uint32_t seed = 90;
  for (uint32_t n : {longest, longest + 1}) {
    for (const char* axes : {"horizontal", "vertical"}) {
      Case c;
      c.width = axes[0] == 'h' ? n : 3;
      c.height = axes[0] == 'h' ? 3 : n;
      c.radius = 300;
      c.axes = axes;
      c.border = seed % 2 ? "mirror" : "clamp";
      c.working = seed % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
      const std::string path = n == longest ? "fused" : "two dispatches";
      (axes[0] == 'h' ? c.horizontal_path : c.vertical_path) = path;
      CheckAgainstStaircase(c, seed++);
    }
  }
}

// The fused path on random odd sizes (rows of several workgroups' lines,
// strips of columns, partial strips at the edge), every border, both
// working formats, one or both axes, radii from the exact kernel to far
// beyond the image.
TEST_F(LargeRadiusTest, FusedPathMatchesItsBoxStackOnRandomOddSizes) {
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> half_width(0, 90), half_height(0, 60);
  const char* const borders[] = {"clamp", "mirror", "wrap", "zero"};
  const char* const axes[] = {"both", "horizontal", "vertical"};
  int count = 0;
  for (int radius : {0, 2, 16, 64, 1024}) {
    for (int b = 0; b < 4; ++b) {
      for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
        Case c;
        c.width = 2 * half_width(rng) + 1;
        c.height = 2 * half_height(rng) + 1;
        c.radius = radius;
        c.border = borders[b];
        c.working = working;
        c.axes = axes[count++ % 3];
        c.horizontal_path = "fused";
        c.vertical_path = "fused";
        CheckAgainstStaircase(c, rng());
      }
    }
  }
}

TEST_F(LargeRadiusTest, ConstantImageStaysConstant) {
  CheckConstantImage({200}, "fused", 2e-5);
}

// A photograph-like 8-bit image: smooth shading, a few hard-edged shapes and
// fine texture, quantised to 8 bits.
Bytes Photo(int width, int height, std::mt19937& rng) {
  ImageD image{width, height, std::vector<double>(size_t(width) * height * 4)};
  std::uniform_real_distribution<double> u(0.0, 1.0);
  struct Disc { double x, y, r, v[3]; };
  std::vector<Disc> discs;
  for (int i = 0; i < 12; ++i) {
    discs.push_back({u(rng) * width, u(rng) * height, (0.05 + 0.2 * u(rng)) * width,
                     {u(rng), u(rng), u(rng)}});
  }
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < 3; ++c) {
        double v = 0.3 + 0.2 * std::sin(0.01 * x * (c + 1)) * std::cos(0.013 * y);
        for (const Disc& d : discs) {
          if (std::hypot(x - d.x, y - d.y) < d.r) v = 0.5 * v + 0.5 * d.v[c];
        }
        v += 0.03 * (u(rng) - 0.5);
        image.at(x, y, c) = std::round(std::clamp(v, 0.0, 1.0) * 255) / 255;
      }
      image.at(x, y, 3) = 1.0;
    }
  }
  return testing::EncodeClient(image, PixelFormat::kRgba32F);
}

// Against the exact variant: on noise within 1 dB of what the method's
// kernels state (the plan adds its rounding, far smaller), on a
// photograph-like 8-bit image at least 50 dB (the floor). "mixed":
// columns too long for the recursion (box stack) under recursive rows, on
// an image tall enough for that on this device.
void CheckPsnr(const std::string& method) {
  const bool mixed = method == "mixed";
  const uint32_t shared = testing::SharedGpu().device->caps().max_compute_shared_memory_bytes;
  std::mt19937 rng(1234);
  const std::vector<int> radii = mixed ? std::vector<int>{16, 64}
                                       : std::vector<int>{16, 64, 256, 1024};
  for (int radius : radii) {
    for (bool photo : {false, true}) {
      Case c;
      c.width = 301;
      c.height = mixed ? (static_cast<int>(shared) * 11 / 10 / 16) | 1 : 203;
      c.radius = radius;
      c.border = photo ? "mirror" : "wrap";
      c.working = PixelFormat::kRgba32F;
      c.horizontal_path = method == "boxes" ? "fused" : "recursive";
      c.vertical_path = method == "boxes" ? "fused" : mixed ? "two dispatches" : "recursive";
      SCOPED_TRACE(c.Name());
      const Bytes input = photo ? Photo(c.width, c.height, rng) : Noise(c.width, c.height, rng);
      const ImageD approx = RunBlur(c, input);
      Case e = c;
      e.variant = "exact";
      e.horizontal_path = e.vertical_path = "";
      const ImageD exact = RunBlur(e, input);
      ASSERT_EQ(approx.v.size(), exact.v.size());
      const double measured = passes::Psnr(exact.v, approx.v);
      const std::vector<double> g = passes::GaussianWeights(radius, c.sigma());
      const std::vector<double> recursive =
          passes::FitRecursiveGaussian(radius, c.sigma()).Kernel(radius);
      const std::vector<double> staircase =
          passes::ChooseBoxStack(radius, c.sigma()).Kernel(radius);
      const double stated =
          mixed ? passes::MixedKernelNoisePsnr(g, recursive, staircase)
                : passes::KernelNoisePsnr(g, method == "boxes" ? staircase : recursive, true);
      std::printf("large_radius (%s) r=%d %s: stated (noise) %.1f dB, measured %.1f dB\n",
                  method.c_str(), radius, photo ? "photo" : "noise", stated, measured);
      if (photo) {
        EXPECT_GE(measured, 50.0);
      } else if (radius <= 64) {
        // Wider kernels wrap around a 301-pixel image: the noise under the
        // kernel is no longer independent, so only the narrow ones are held
        // to the statement (1 dB for sampling noise).
        EXPECT_GE(measured, stated - 1.0);
      }
    }
  }
}

TEST_F(LargeRadiusTest, MeetsItsStatedPsnrAndFiftyDecibelsOnPhotographs) { CheckPsnr("boxes"); }

TEST_F(LargeRadiusRecursiveTest, MeetsItsStatedPsnrAndFiftyDecibelsOnPhotographs) {
  CheckPsnr("recursive");
}

TEST_F(LargeRadiusRecursiveTest, RecursiveRowsWithBoxColumnsMeetTheirStatedPsnr) {
  CheckPsnr("mixed");
}

TEST(BoxStack, WeightsSumToOneExactForFewTapsAndAccurateForLargeRadii) {
  for (int radius : {0, 1, 3, 7, 16, 64, 256, 1024, 4096}) {
    for (double sigma : {radius / 2.0, radius / 6.0 + 0.5, 3.0 * radius + 1}) {
      SCOPED_TRACE(absl::StrCat("radius ", radius, " sigma ", sigma));
      const passes::BoxStack s = passes::ChooseBoxStack(radius, sigma);
      EXPECT_LE(s.coeffs.size(), size_t(passes::kLargeRadiusBoxes));
      EXPECT_EQ(s.half_widths.back(), radius);
      const std::vector<double> k = s.Kernel(radius);
      double total = k[0];
      for (int i = 1; i <= radius; ++i) total += 2 * k[i];
      EXPECT_NEAR(total, 1.0, 1e-12);
      const std::vector<double> g = passes::GaussianWeights(radius, sigma);
      const double psnr = passes::KernelNoisePsnr(g, k, true);
      if (radius + 1 <= passes::kLargeRadiusBoxes) {
        EXPECT_TRUE(std::isinf(psnr)) << psnr;
      } else if (radius >= 16) {
        EXPECT_GE(psnr, 50.0);
      }
    }
  }
}

}  // namespace
}  // namespace rgfx
