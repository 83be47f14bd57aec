// Every gaussian_blur variant against the double-precision CPU reference
// (exact variants) or the exact variant's output (decimated, within the PSNR
// its plan states), on random odd sizes, radii 0, 1, 64, 300, every border,
// both working formats.
//
// Images are RGBA32F, linear, premultiplied: the client conversions are
// identities, so only the blur's own error is measured. Tolerances, in
// normalised units (values in [0, 1]), against the unrounded reference:
// - working RGBA32F: 2e-5 plus 1.2e-7 per tap and pass (float accumulation,
//   as for exact) plus 4e-6 for the exp() weights the lineage computes in the
//   shader (a few ulp each, 1e-6 relative at most on lavapipe and NVIDIA,
//   whose sum over normalised weights is bounded by the same relative error).
// - working RGBA16F: 1.5e-3: the imported input, the intermediate and the
//   result are each rounded to half (≤ 2^-12 relative each, ≤ 7.4e-4 for
//   values ≤ 1), so 2× margin; fast's streamed matrix kernel, whose
//   weights are rounded to half, adds < 2.5e-4 per axis (its plan states
//   the figure): 1.24e-3 at most.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "passes/blur_variants/blur_variant.h"
#include "passes/blur_variants/decimated.h"
#include "passes/blur_variants/fast.h"
#include "passes/blur_variants/fast_fft.h"
#include "passes/image_metrics.h"
#include "passes/gaussian_blur.h"
#include "tests/support/gpu_env.h"
#include "tests/support/reference.h"

namespace rgfx {
namespace {

using graph::PixelFormat;
using testing::Bytes;
using testing::ImageD;

struct Case {
  std::string variant;
  int width = 37;
  int height = 29;
  int radius = 5;
  std::optional<double> sigma;
  std::string border = "clamp";
  std::string axes = "both";
  PixelFormat working = PixelFormat::kRgba16F;
  int max_taps = 64;
  double min_psnr_db = 0;  // what the request allows (fast RGBA32F's fp16 path)

  std::string Name() const {
    return absl::StrCat(variant, " ", width, "x", height, " r=", radius,
                        " sigma=", sigma.value_or(-1), " ", border, " ", axes,
                        " working=", std::string(graph::PixelFormatName(working)),
                        " max_taps=", max_taps, " min_psnr_db=", min_psnr_db);
  }
};

graph::GraphDesc Graph(const Case& c) {
  graph::GraphDesc desc;
  desc.working_format = c.working;
  desc.inputs.push_back({"image", {uint32_t(c.width), uint32_t(c.height)}, PixelFormat::kRgba32F,
                         graph::ColorSpace::kLinear, graph::AlphaMode::kPremultiplied});
  graph::PassDesc blur{"blur", "gaussian_blur", {"image"}, {"soft"}, {}};
  blur.params.Set("radius", int64_t{c.radius});
  if (c.sigma) blur.params.Set("sigma", *c.sigma);
  blur.params.Set("border", c.border);
  blur.params.Set("axes", c.axes);
  blur.params.Set("variant", c.variant);
  blur.params.Set("max_taps", int64_t{c.max_taps});
  blur.params.Set("min_psnr_db", c.min_psnr_db);
  desc.passes.push_back(blur);
  desc.outputs.push_back({"soft", PixelFormat::kRgba32F, graph::ColorSpace::kLinear,
                          graph::AlphaMode::kPremultiplied});
  return desc;
}

// Uniform white noise in [0, 1] in every channel.
Bytes Noise(int width, int height, std::mt19937& rng) {
  ImageD image{width, height, std::vector<double>(size_t(width) * height * 4)};
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (double& v : image.v) v = u(rng);
  return testing::EncodeClient(image, PixelFormat::kRgba32F);
}

ImageD Decode(const Bytes& bytes, const Case& c) {
  return testing::DecodeClient(bytes, c.width, c.height, PixelFormat::kRgba32F);
}

ImageD Reference(const Case& c, const Bytes& input);

// `image` (RGBA32F) through `c`'s graph: what came back, or why nothing did.
absl::StatusOr<ImageD> Blur(const Case& c, const ImageD& image) {
  auto run = testing::RunGraph(Graph(c), {testing::EncodeClient(image, PixelFormat::kRgba32F)});
  if (!run.ok()) return run.status();
  return Decode(run->outputs[0], c);
}

ImageD Reference(const Case& c, const Bytes& input) {
  const double sigma = c.sigma.value_or(c.radius / 2.0);
  const auto border = testing::ParseBorder(c.border);
  ImageD img = Decode(input, c);
  if (c.axes != "vertical") img = testing::BlurAxis(img, c.radius, sigma, border, true);
  if (c.axes != "horizontal") img = testing::BlurAxis(img, c.radius, sigma, border, false);
  return img;
}

// Whether fast's plan for `c` on the test's device streams RGBA32F through
// fp16 (matrix units): then its plan states it approximate.
bool FastScaledHalf(const Case& c) {
  if (c.variant != "fast" || c.working != PixelFormat::kRgba32F) return false;
  passes::BlurConfig config;
  config.pass_name = "blur";
  config.radius = c.radius;
  config.sigma = c.sigma.value_or(c.radius / 2.0);
  config.axes = c.axes;
  config.extent = {uint32_t(c.width), uint32_t(c.height)};
  config.working = c.working;
  config.caps = testing::SharedGpu().device->caps();
  config.min_psnr_db = c.min_psnr_db;
  graph::PassPlan plan;
  passes::BlurPrepared prepared;
  return passes::FindBlurVariant("fast")->Plan(config, plan, prepared).ok() &&
         !prepared.accuracy.exact;
}

// fast's RGBA32F bound on the matrix units, per axis, as a fraction of the
// largest magnitude in reach (its plan states the figure for the kernel:
// at most 7.5e-4 for σ = R/2 from r = 5 on, fp16 weights plus 2^-11).
constexpr double kScaledHalfAxisTolerance = 8e-4;
// What those tests allow (min_psnr_db): below the plan's stated PSNR
// (56.9-57.8 dB for σ = R/2), so the fp16 path runs; without it fast keeps
// fp32 (FastRgba32FIsExactUnlessAllowed).
constexpr double kAllowScaledHalfDb = 50;

double Tolerance(const Case& c) {
  const int passes = c.axes == "both" ? 2 : 1;
  if (c.working == PixelFormat::kRgba16F) return 1.5e-3;
  if (FastScaledHalf(c)) return passes * kScaledHalfAxisTolerance;
  return 2e-5 + 4e-6 + 1.2e-7 * passes * (2 * c.radius + 1);
}

// Returns the worst error (for tests that print it).
double CheckAgainstReference(const Case& c, uint32_t seed) {
  SCOPED_TRACE(c.Name());
  std::mt19937 rng(seed);
  const Bytes input = Noise(c.width, c.height, rng);
  auto run = testing::RunGraph(Graph(c), {input});
  EXPECT_TRUE(run.ok()) << run.status();
  if (!run.ok()) return 0;
  EXPECT_EQ(run->timings.passes[1].variant, c.variant);
  const ImageD got = Decode(run->outputs[0], c);
  const ImageD want = Reference(c, input);
  int failures = 0;
  double worst = 0;
  const double tolerance = Tolerance(c);
  for (size_t i = 0; i < want.v.size(); ++i) {
    const double error = std::abs(got.v[i] - want.v[i]);
    worst = std::max(worst, error);
    if (!(error <= tolerance) && ++failures <= 5) {
      const size_t px = i / 4;
      ADD_FAILURE() << "pixel (" << px % c.width << ", " << px / c.width << ") channel " << i % 4
                    << ": got " << got.v[i] << ", want " << want.v[i] << " (error " << error
                    << ", tolerance " << tolerance << ")";
    }
  }
  EXPECT_EQ(failures, 0) << "worst error " << worst;
  return worst;
}

// The variants that must equal the exact blur; decimated does when its tap
// budget covers the kernel.
const char* const kExactVariants[] = {"naive", "line_cache", "decimated", "symmetric",
                                      "tuned",  "tiled_halo", "fast"};

// Every border mode a request can name.
const char* const kBorders[] = {"clamp", "mirror", "wrap", "zero"};

class BlurVariantsTest : public testing::GpuTest {};

// fast's plan for a w x h image on `caps` (σ = radius / 2), RGBA16F unless
// said.
passes::BlurPrepared FastPlan(const gpu::DeviceCaps& caps, int radius, int w, int h,
                              const std::string& axes,
                              PixelFormat working = PixelFormat::kRgba16F) {
  passes::BlurConfig config;
  config.pass_name = "blur";
  config.radius = radius;
  config.sigma = radius / 2.0;
  config.axes = axes;
  config.extent = {uint32_t(w), uint32_t(h)};
  config.working = working;
  config.caps = caps;
  graph::PassPlan plan;
  passes::BlurPrepared prepared;
  const absl::Status status = passes::FindBlurVariant("fast")->Plan(config, plan, prepared);
  EXPECT_TRUE(status.ok()) << status;
  return prepared;
}

// The details of fast's step along the long side (one axis): which kernel
// and shape would run.
std::string FastLineStepDetails(const gpu::DeviceCaps& caps, int radius, int w, int h) {
  const passes::BlurPrepared prepared =
      FastPlan(caps, radius, w, h, w > h ? "horizontal" : "vertical");
  return prepared.steps.empty() ? "" : prepared.steps[0].details;
}

// Whether the test's device has matrix units, printed with what the test
// runs there (`with`) or instead (`without`): a test whose fast paths need
// them says which paths it checked rather than passing silently.
bool SayMatrixUnits(const char* with, const char* without) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  const bool matrix = caps.f16_matrix_product_16;
  std::printf("%s: %s\n", caps.name.c_str(), matrix ? with : without);
  return matrix;
}

// While alive, fast's RGBA32F axes never take the FFT: for the tests of the
// fp32 line paths, which the FFT would otherwise take over where it pays.
struct WithoutFft {
  WithoutFft() {
    passes::FftPolicy policy = passes::FastFftPolicy();
    policy.from_radius = 1 << 30;
    passes::SetFastFftPolicy(policy);
  }
  ~WithoutFft() { passes::SetFastFftPolicy(std::nullopt); }
};

const char* TilesPerStepWords(uint32_t n) {
  return n == 1 ? "one tile per step" : n == 2 ? "two tiles per step" : "four tiles per step";
}

TEST_F(BlurVariantsTest, ExactVariantsMatchReferenceForEverySizeRadiusBorderAndFormat) {
  const std::pair<int, int> sizes[] = {{1, 1}, {2, 3}, {37, 29}, {131, 67}};
  uint32_t seed = 1;
  for (const char* variant : kExactVariants) {
    for (auto [w, h] : sizes) {
      for (int radius : {0, 1, 64, 300}) {
        for (int b = 0; b < 4; ++b) {
          Case c{variant, w, h, radius};
          c.border = kBorders[b];
          c.max_taps = 2 * 300 + 1;
          // Both formats for every size and radius, half the runs.
          c.working = (b + radius) % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
          CheckAgainstReference(c, seed++);
        }
      }
    }
  }
}

// fast's one-dispatch path for small radii on both axes: images of several
// tiles and of less than one (lines of one pixel), every border, both
// formats, radii up to its limit of 8.
TEST_F(BlurVariantsTest, FastBothAxesInOneDispatchMatchesReference) {
  const std::pair<int, int> sizes[] = {{97, 71}, {1, 130}, {130, 1}, {33, 17}};
  uint32_t seed = 700;
  for (auto [w, h] : sizes) {
    for (int radius : {2, 3, 8}) {
      for (int b = 0; b < 4; ++b) {
        Case c{"fast", w, h, radius};
        c.border = kBorders[b];
        c.working = (b + radius) % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
        CheckAgainstReference(c, seed++);
      }
    }
  }
  // It is the one-dispatch path that ran: a single step.
  Case c{"fast", 97, 71, 8};
  std::mt19937 rng(1);
  auto run = testing::RunGraph(Graph(c), {Noise(c.width, c.height, rng)});
  ASSERT_TRUE(run.ok()) << run.status();
  ASSERT_EQ(run->timings.passes[1].steps.size(), 1u);
  EXPECT_EQ(run->timings.passes[1].steps[0].label, "both axes");
}

// fast's vertical pass with columns staged in tiles (2 RGBA32F or 4 RGBA16F
// columns of 256 or 128 rows, plus the halo; RGBA32F here in tiles of 384
// rows, the taller tile the plan takes for 1100 and 531 rows at r = 9 and
// 64): images several tiles tall,
// widths that leave the last tile short of columns, every border, both
// formats, one axis and both, radii whose halo is and is not a multiple of
// 8 rows. At r = 300 the columns are read directly (on lavapipe's 32 KB
// the RGBA32F tile does not fit; the RGBA16F halo is over 4 tiles).
TEST_F(BlurVariantsTest, FastColumnTilesMatchReference) {
  const WithoutFft line_paths;
  uint32_t seed = 800;
  for (auto [w, h] : {std::pair{7, 1100}, std::pair{3, 531}}) {
    for (int radius : {9, 64, 300}) {
      for (int b = 0; b < 4; ++b) {
        Case c{"fast", w, h, radius};
        c.border = kBorders[b];
        c.axes = b % 2 ? "vertical" : "both";
        c.working = (b / 2 + radius) % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
        c.max_taps = 2 * 300 + 1;
        CheckAgainstReference(c, seed++);
      }
    }
  }
}

// fast RGBA32F through the FFT (passes/blur_variants/fast_fft.h), forced
// from every radius (passes::SetFastFftPolicy): transforms of 256 points
// (lines far shorter) up to 4096 (one channel pair a workgroup, where both
// do not fit 32 KB), lines in one piece and in segments (2101 × 3 r = 40:
// rows in 5 of 512 points; 5 × 1017 r = 0: columns in 2 of 512, two
// columns a workgroup with the plan's elements an invocation, the third
// workgroup's second column past the image),
// lines of one pixel, radii 0 to 300 with lines shorter than the radius,
// every border, one axis and both. The plan must name the FFT on every
// axis. Tolerance as for every RGBA32F exact path (float rounding).
TEST_F(BlurVariantsTest, FastRgba32FThroughTheFftMatchesReference) {
  struct Reset {
    ~Reset() { passes::SetFastFftPolicy(std::nullopt); }
  } reset;
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  ASSERT_GE(passes::FftMaxSize(caps), 2048u)
      << "the FFT needs 32 KB of shared memory for 2048 points";
  uint32_t seed = 3300;
  double worst = 0;
  int stripped = 0;  // plans whose temporary went in strips of columns
  // The plan's elements an invocation (8 up to 1024 points, 16 above), 16
  // everywhere with both channel pairs a workgroup, and 8 with one (the
  // others combine the same code).
  for (const passes::FftPolicy policy :
       {passes::FftPolicy{0, 0, false}, passes::FftPolicy{0, 16, false},
        passes::FftPolicy{0, 8, true}}) {
    passes::SetFastFftPolicy(policy);
    const struct {
      int w, h, radius;
    } shapes[] = {{37, 29, 5}, {131, 67, 64}, {1, 130, 24}, {130, 1, 300}, {1, 1, 1},
                  {993, 5, 27}, {5, 1017, 0}, {17, 1500, 270}, {2101, 3, 40}};
    int index = 0;
    for (const auto& shape : shapes) {
      // Two borders a shape, every border over the shapes (each border and
      // transform length is a pipeline of its own: lavapipe compiles each).
      for (const int b : {index % 4, (index + 2) % 4}) {
        Case c{"fast", shape.w, shape.h, shape.radius};
        c.border = kBorders[b];
        c.axes = b == 1 ? "horizontal" : b == 2 ? "vertical" : "both";
        // (Both axes up to r = 8 take the one-dispatch path instead.)
        if (c.radius <= 8 && c.axes == "both") c.axes = b == 0 ? "horizontal" : "vertical";
        c.working = PixelFormat::kRgba32F;
        c.max_taps = 2 * 300 + 1;
        const passes::BlurPrepared prepared =
            FastPlan(caps, c.radius, c.width, c.height, c.axes, PixelFormat::kRgba32F);
        for (const passes::StepKernel& k : prepared.steps) {
          const uint64_t size = passes::FftCheapestShape(k.layout.n, uint64_t(c.radius),
                                                         k.layout.in_pixel_stride != 1, caps,
                                                         policy)
                                    ->cut.size;
          EXPECT_THAT(k.details, ::testing::HasSubstr(absl::StrCat(size, "-point transforms")))
              << c.Name();
          stripped += k.details.find("loads the temporary in strips") != std::string::npos;
        }
        worst = std::max(worst, CheckAgainstReference(c, seed++));
      }
      ++index;
    }
  }
  std::printf("%s: worst error through the FFT %.2e\n", caps.name.c_str(), worst);
  // Both axes through the transform with columns several a workgroup take
  // the temporary in strips (StripTheFftTemporary): that path ran too.
  EXPECT_GT(stripped, 0);
}

// Lines of pieces of `piece` pixels, each uniform noise times 10^u (u
// uniform in [-6, 6]): amplitudes that differ by up to 10^12 along a line
// (rows where w > h, else columns). amplitude[line · pieces + p] is piece
// p's; pieces listed in `zero_pieces` are 0 on every line.
struct MixedAmplitudes {
  ImageD image;
  bool rows = true;
  int lines = 0, n = 0, pieces = 0;
  std::vector<double> amplitude;
};

MixedAmplitudes MixedAmplitudeImage(int w, int h, int piece, std::mt19937& rng,
                                    std::initializer_list<int> zero_pieces = {}) {
  MixedAmplitudes m;
  m.rows = w > h;
  m.lines = m.rows ? h : w;
  m.n = m.rows ? w : h;
  m.pieces = (m.n + piece - 1) / piece;
  m.amplitude.resize(size_t(m.lines) * m.pieces);
  std::uniform_real_distribution<double> u(-6.0, 6.0), unit(0.0, 1.0);
  for (double& a : m.amplitude) a = std::pow(10.0, u(rng));
  for (const int p : zero_pieces) {
    for (int l = 0; l < m.lines; ++l) m.amplitude[size_t(l) * m.pieces + p] = 0;
  }
  m.image = {w, h, std::vector<double>(size_t(w) * h * 4)};
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      const int line = m.rows ? y : x, at = m.rows ? x : y;
      for (int ch = 0; ch < 4; ++ch) {
        m.image.v[(size_t(y) * w + x) * 4 + ch] =
            m.amplitude[size_t(line) * m.pieces + at / piece] * unit(rng);
      }
    }
  }
  return m;
}

// fast RGBA32F's FFT guard (gaussian_blur_fft.comp): a transform's rounding
// is relative to the whole segment it transforms, so lines mixing
// amplitudes of 10^-6 to 10^6 (pieces of 100 pixels), with runs of zeros, black end
// pixels, an inf and a NaN, must
// still give every output within 1e-3 of the largest amplitude its window
// reads (the bound for float output; the guard sums directly where
// the transform could not keep it), exactly 0 where the window holds only
// zeros, and inf or NaN exactly where the window holds them, as a direct sum
// does. Rows and columns, forced through the FFT from every radius.
TEST_F(BlurVariantsTest, FastFftKeepsEachWindowsPrecisionOnMixedAmplitudes) {
  struct Reset {
    ~Reset() { passes::SetFastFftPolicy(std::nullopt); }
  } reset;
  constexpr int kPiece = 100;
  std::mt19937 rng(9090);
  double worst = 0;
  int index = 0;
  for (const int radius : {20, 64}) {
    for (auto [w, h] : {std::pair{1130, 5}, std::pair{5, 1130}}) {
      // Rows in one piece (2048 points) at r = 20, in segments of 512 at
      // r = 64; columns in segments of 512, four a workgroup (the second
      // workgroup holds one, the first the inf and the NaN beside finite
      // lines).
      const bool along_rows = w > h;
      passes::SetFastFftPolicy(passes::FftPolicy{
          0, 0, false, along_rows ? (radius == 20 ? 2048u : 0u) : 512u, along_rows ? 0u : 4u});
      Case c{"fast", w, h, radius};
      c.working = PixelFormat::kRgba32F;
      c.border = kBorders[index++ % 4];
      c.axes = w > h ? "horizontal" : "vertical";
      SCOPED_TRACE(c.Name());
      const passes::BlurPrepared prepared = FastPlan(testing::SharedGpu().device->caps(), radius, w,
                                                     h, c.axes, PixelFormat::kRgba32F);
      ASSERT_EQ(prepared.steps.size(), 1u);
      EXPECT_THAT(prepared.steps[0].details,
                  ::testing::HasSubstr(!along_rows    ? "x 4 columns per segment (3 a line"
                                       : radius == 20 ? "per line, 2048-point"
                                                      : "per segment (3 a line"));
      MixedAmplitudes mixed = MixedAmplitudeImage(w, h, kPiece, rng, {3});  // piece 3: zeros
      const bool rows = mixed.rows;
      const int lines = mixed.lines, n = mixed.n, pieces = mixed.pieces;
      const std::vector<double>& amplitude = mixed.amplitude;
      ImageD& image = mixed.image;
      const auto pixel = [&](int line, int at) {
        return rows ? size_t(line) * w + at : size_t(at) * w + line;
      };
      image.v[pixel(1, 700) * 4 + 2] = std::numeric_limits<double>::infinity();
      image.v[pixel(2, 900) * 4 + 1] = std::numeric_limits<double>::quiet_NaN();
      // Every line's end pixels black (a transparent border in premultiplied
      // alpha): clamped, R copies of one dark pixel fill the first and last
      // segments' context, blocks the common test turns down although every
      // window there reads bright ones too (the guard's second chance keeps
      // those segments on the transform; an output it wrongly kept would show
      // here as an error against its window's amplitude).
      for (int l = 0; l < lines; ++l) {
        for (int ch = 0; ch < 4; ++ch) {
          image.v[pixel(l, 0) * 4 + ch] = 0;
          image.v[pixel(l, n - 1) * 4 + ch] = 0;
        }
      }
      const absl::StatusOr<ImageD> got = Blur(c, image);
      ASSERT_TRUE(got.ok()) << got.status();
      const ImageD want = Reference(c, testing::EncodeClient(image, PixelFormat::kRgba32F));
      const testing::Border border = testing::ParseBorder(c.border);
      int failures = 0;
      for (int l = 0; l < lines; ++l) {
        for (int i = 0; i < n; ++i) {
          double reach = 0;
          for (int d = -radius; d <= radius; ++d) {
            const int at = testing::BorderIndex(i + d, n, border);
            if (at >= 0) reach = std::max(reach, amplitude[size_t(l) * pieces + at / kPiece]);
          }
          for (int ch = 0; ch < 4; ++ch) {
            const size_t k = pixel(l, i) * 4 + ch;
            const double g = got->v[k], e = want.v[k];
            bool ok;
            if (!std::isfinite(e)) {
              ok = std::isnan(e) ? std::isnan(g) : g == e;
            } else if (reach == 0) {
              ok = g == 0;
            } else {
              const double relative = std::abs(g - e) / reach;
              worst = std::max(worst, relative);
              ok = relative <= 1e-3;
            }
            if (!ok && ++failures <= 5) {
              ADD_FAILURE() << "line " << l << " pixel " << i << " channel " << ch << ": got " << g
                            << ", want " << e << " (largest amplitude in reach " << reach << ")";
            }
          }
        }
      }
    }
  }
  std::printf("worst error through the FFT's guard %.2e of the amplitude in reach (bound 1e-3)\n",
              worst);
}

// fast's rows where no segment fits the shared memory (lavapipe's 32 KB:
// RGBA32F from r ~ 600; 48 KB GPUs from r ~ 1000): the strided rows, at the
// plan's own choice (FastStridedRowsMatchReference forces them at small
// radii), lines of several segments, the last partial, every border, one
// axis and both. The test prints which kernel the plan took; on a device
// with more shared memory the segments may still fit (then it checks those).
TEST_F(BlurVariantsTest, FastRowsBeyondTheSegmentsMatchReference) {
  const WithoutFft line_paths;
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  const int radius = caps.max_compute_shared_memory_bytes <= (32 << 10) ? 650 : 1024;
  const passes::BlurPrepared prepared =
      FastPlan(caps, radius, 1100, 3, "horizontal", PixelFormat::kRgba32F);
  ASSERT_EQ(prepared.steps.size(), 1u);
  std::printf("%s, RGBA32F r = %d: %s\n", caps.name.c_str(), radius,
              prepared.steps[0].details.c_str());
  if (caps.max_compute_shared_memory_bytes <= (48 << 10)) {
    EXPECT_THAT(prepared.steps[0].details, ::testing::HasSubstr("32 invocations along 256 px"));
  }
  uint32_t seed = 1800;
  for (int b = 0; b < 4; ++b) {
    Case c{"fast", 1100, 3, radius};
    c.border = kBorders[b];
    c.axes = b == 0 ? "both" : "horizontal";
    c.working = PixelFormat::kRgba32F;
    c.max_taps = 2 * radius + 1;
    CheckAgainstReference(c, seed++);
  }
}

// fast's strided rows (lanes along the row, outputs 32 px apart), which the
// plan takes where no segment fits (RGBA32F beyond r ~ 1100 on 48 KB),
// forced here from every radius (passes::SetFastStridedRowsFrom): lines of
// several segments of 256 px and the last partial, lines shorter than one
// segment and than the window, the window's blocks of 8 steps meeting the
// 32-px offsets at several phases (r = 9, 40, 300), every border, both
// formats, one axis and both.
TEST_F(BlurVariantsTest, FastStridedRowsMatchReference) {
  const WithoutFft line_paths;
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  struct Restore {
    ~Restore() { passes::SetFastStridedRowsFrom(std::nullopt); }
  } restore;
  passes::SetFastStridedRowsFrom(1);
  uint32_t seed = 1900;
  for (auto [w, h] : {std::pair{1100, 3}, std::pair{37, 5}}) {
    for (int radius : {9, 40, 300}) {
      for (int b = 0; b < 4; ++b) {
        Case c{"fast", w, h, radius};
        c.border = kBorders[b];
        c.axes = b == 1 ? "both" : "horizontal";
        c.working = (b + radius) % 2 ? PixelFormat::kRgba32F : PixelFormat::kRgba16F;
        c.max_taps = 2 * 300 + 1;
        CheckAgainstReference(c, seed++);
      }
    }
  }
  {
    // An inf at x = 500 of row 1 (channel 0): outputs within the radius of
    // it are not finite in that channel; up to 7 beyond they may be (a
    // block of 8 steps reads up to 7 pixels past a window under zero
    // weights, 0 · inf is NaN); every other output matches the reference.
    Case c{"fast", 1100, 3, 40};
    c.working = PixelFormat::kRgba32F;
    c.axes = "horizontal";
    c.border = "zero";
    SCOPED_TRACE(c.Name());
    std::mt19937 seeded(79);
    ImageD image{c.width, c.height, std::vector<double>(size_t(c.width) * c.height * 4)};
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (double& v : image.v) v = unit(seeded);
    const size_t at = (size_t(1) * c.width + 500) * 4;
    image.v[at] = INFINITY;
    const absl::StatusOr<ImageD> got = Blur(c, image);
    ASSERT_TRUE(got.ok()) << got.status();
    image.v[at] = 0;
    const ImageD want = Reference(c, testing::EncodeClient(image, PixelFormat::kRgba32F));
    int failures = 0;
    for (size_t i = 0; i < want.v.size(); ++i) {
      const int x = int(i / 4 % c.width), y = int(i / 4 / c.width);
      const int from = y != 1 || i % 4 != 0 ? 1 << 20 : std::abs(x - 500);
      const bool close = std::abs(got->v[i] - want.v[i]) <= Tolerance(c);
      const bool ok = from <= c.radius       ? !std::isfinite(got->v[i])
                      : from <= c.radius + 7 ? !std::isfinite(got->v[i]) || close
                                             : close;
      if (!ok && ++failures <= 5) {
        ADD_FAILURE() << "pixel (" << x << ", " << y << ") channel " << i % 4 << ": got "
                      << got->v[i] << ", want " << (from <= c.radius ? "not finite" : "finite");
      }
    }
  }
  // The plan took the strided rows (RGBA32F: no matrix units on any device).
  const passes::BlurPrepared prepared =
      FastPlan(caps, 40, 1100, 3, "horizontal", PixelFormat::kRgba32F);
  ASSERT_EQ(prepared.steps.size(), 1u);
  EXPECT_THAT(prepared.steps[0].details, ::testing::HasSubstr("32 invocations along 256 px"));
}

// fast's streamed matrix kernel (RGBA16F, r <= 112 here; beyond, the
// next test; devices with matrix units, images giving at least 1024
// subgroups, 768 from r = 65): lines of 7 segments of 10 tiles (1100 px)
// or 11 (1130 px: an odd count, so the two-tile kernel's last step has one
// tile), 6 of 12 from r = 65 (151 groups of 4 lines: 906 subgroups), the
// last segment partial, line counts that leave the last workgroup's
// subgroups short of lines, every border, one axis and both (r = 7 both:
// streamed, not the one-dispatch kernel); the
// radii span the measured shapes of rows and columns
// (passes::FastStreamShapeFor): one tile per step (rows at r = 5, 7, 17),
// two (rows at r = 32, 40 and 100, columns at r = 5-32, 80 and 100), four
// (rows at r = 48-80, columns at r = 40-64), two subgroups a workgroup (r = 32-80; the
// last workgroup of 601 lines has a subgroup with no line at all), blocks
// in registers (rows at r = 32-80, columns up to r = 80), 4 blocks loaded
// ahead and 2, so both queue depths run. Two accumulator chains, which the
// RGBA16F table no longer takes, run in FastMatrixStreamShapesMatchReference.
// Without matrix units (lavapipe) nothing streams: the same shapes, 21
// lines instead of 601, run the line paths, and the test says so.
TEST_F(BlurVariantsTest, FastMatrixStreamSegmentsMatchReference) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  const bool matrix = SayMatrixUnits(
      "matrix units: the streamed kernel runs on 1100 or 1130 x 601 and "
      "601 x 1100 or 1130",
      "no matrix units: nothing streams here, the line paths run on 1100 or 1130 x "
      "21 and 21 x 1100 or 1130 (the streamed kernel is checked on a device with them, "
      "see docs/blur/h100-tests-*.txt)");
  const int across = matrix ? 601 : 21;
  const char* const axes[] = {"both", "horizontal", "vertical"};
  uint32_t seed = 900;
  double worst = 0;
  std::set<std::string> kernels;  // "<tiles per step> <ahead> <lines per workgroup>"
  for (int radius : {5, 7, 17, 32, 40, 48, 64, 80, 100}) {
    const int length = radius == 64 || radius == 80 || radius == 100 ? 1100 : 1130;
    for (auto [w, h] : {std::pair{length, across}, std::pair{across, length}}) {
      // The kernel the plan picks for the long lines on this device.
      const std::string details = FastLineStepDetails(caps, radius, w, h);
      EXPECT_EQ(details.find("streamed") != std::string::npos, matrix) << details;
      if (matrix) {
        const bool columns = w < h;  // the long lines are columns
        const passes::FastStreamShape shape =
            passes::FastStreamShapeFor(radius, false, columns);
        const std::string kernel = absl::StrCat(
            TilesPerStepWords(shape.tiles_per_step), ", with a ring of ",
            1 + (2 * radius + 15) / 16 + shape.tiles_per_step - 1, " blocks, ", shape.ahead,
            " loaded ahead; ", 4 * shape.warps, " lines per workgroup");
        EXPECT_THAT(details, ::testing::HasSubstr(kernel));
        const bool chains = columns && shape.column_chains == 2;
        EXPECT_EQ(details.find("two accumulator chains per tile") != std::string::npos, chains);
        const bool in_registers = shape.register_ring == 1;
        EXPECT_EQ(details.find("blocks in registers") != std::string::npos, in_registers);
        kernels.insert(kernel.substr(0, 3) + kernel.substr(kernel.find(" blocks, ")) +
                       (chains ? " chains" : "") + (in_registers ? " registers" : ""));
        EXPECT_THAT(details, ::testing::HasSubstr(radius > 64        ? "along 192 outputs"
                                                  : length == 1100 ? "along 160 outputs"
                                                                   : "along 176 outputs"));
      }
      if (radius == 7) {  // both axes: two streamed steps, else one dispatch
        EXPECT_EQ(FastPlan(caps, radius, w, h, "both").steps.size(), matrix ? 2u : 1u);
      }
      for (int b = 0; b < 4; ++b) {
        Case c{"fast", w, h, radius};
        c.border = kBorders[b];
        c.axes = axes[(b + radius) % 3];
        c.working = PixelFormat::kRgba16F;
        worst = std::max(worst, CheckAgainstReference(c, seed++));
      }
    }
  }
  std::printf("worst error over these images %.2e (tolerance %.1e)\n", worst, 1.5e-3);
  if (matrix) {
    // Every kernel build the table takes at these sizes (one, two and four
    // tiles per step, one and two subgroups a workgroup, blocks in
    // registers), both queue depths ran (two accumulator chains and four
    // subgroups: FastMatrixStreamShapesMatchReference).
    for (const char* part : {"one", "two", "fou", " 2 loaded", " 4 loaded", "; 4 lines",
                             "; 8 lines", " registers"}) {
      EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [&](const std::string& k) {
        return k.find(part) != std::string::npos;
      })) << part;
    }
  }
}

// fast's streamed kernel in one pass beyond r = 112 (RGBA16F, up to 383,
// where the plan starts to split the taps: FastMatrixSplitTapsMatchReference;
// before, the panel kernel or the line paths ran there): the weight blocks
// in registers grow past what a lane holds (the driver spills from about
// r = 256), two tiles a step. Lines of 1130 px (6 segments of 12 tiles
// for 151 groups of 4 lines), both long axes, each radius with two
// borders and one axis each, the halo reaching past an end of the line for
// most outputs at r = 320 and 383. Without matrix units the line paths run
// on 21 lines instead, and the test says so.
TEST_F(BlurVariantsTest, FastMatrixStreamBeyondRadius112MatchesReference) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  const bool matrix = SayMatrixUnits(
      "matrix units: the streamed kernel runs at r = 113-383 on 1130 x 601 and 601 x 1130",
      "no matrix units: nothing streams here, the line paths run on 1130 x 21 and 21 x 1130 "
      "(the streamed kernel is checked on a device with them, see docs/blur/h200-tests-*.txt)");
  const int across = matrix ? 601 : 21;
  uint32_t seed = 1700;
  double worst = 0;
  int b = 0;
  for (int radius : {113, 200, 320, 383}) {
    for (auto [w, h] : {std::pair{1130, across}, std::pair{across, 1130}}) {
      const std::string details = FastLineStepDetails(caps, radius, w, h);
      EXPECT_EQ(details.find("streamed") != std::string::npos, matrix) << details;
      if (matrix) {
        const passes::FastStreamShape shape = passes::FastStreamShapeFor(radius, false, w < h);
        EXPECT_THAT(details, ::testing::HasSubstr(absl::StrCat(
                                 TilesPerStepWords(shape.tiles_per_step), ", with a ring of ",
                                 1 + (2 * radius + 15) / 16 + shape.tiles_per_step - 1,
                                 " blocks")));
      }
      Case c{"fast", w, h, radius};
      c.border = kBorders[b++ % 4];
      c.axes = w > h ? "horizontal" : "vertical";
      c.working = PixelFormat::kRgba16F;
      c.max_taps = 2 * radius + 1;
      worst = std::max(worst, CheckAgainstReference(c, seed++));
    }
  }
  std::printf("worst error over these images %.2e (tolerance %.1e)\n", worst, 1.5e-3);
}

// From r = 384 (RGBA16F) the taps are cut into parts of at most 321, one
// streamed dispatch each, their sums meeting in an fp32 image (fast.cc's
// PlanSplitStream): r = 384 and 449 in three parts, 600 in four, 1024 in
// seven. Each radius
// on one axis of 1130 x 601 and 601 x 1130 (the halo past both ends of
// every line, parts whose taps all lie beyond an end), every border, and
// both axes of 1130 x 601 (the partial sums written by both steps, the
// temporary between them in tiles). A part
// read at the wrong shift, a part missing, or sums not carried from part to
// part fails against the reference. Without matrix units (lavapipe) the
// line paths run on 21 lines instead, and the test says so.
TEST_F(BlurVariantsTest, FastMatrixSplitTapsMatchReference) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  const bool matrix = SayMatrixUnits(
      "matrix units: split taps stream at r = 384-1024 on 1130 x 601 and 601 x 1130",
      "no matrix units: nothing streams here, the line paths run on 1130 x 21 and 21 x 1130 "
      "(split taps are checked on a device with them, see docs/blur/h200-tests-*.txt)");
  const int across = matrix ? 601 : 21;
  uint32_t seed = 2100;
  double worst = 0;
  int b = 0;
  struct Run {
    int radius, w, h;
    const char* axes;
    int parts;
  };
  std::vector<Run> runs;
  ASSERT_EQ(passes::kFastSplitPolicy.part_max_radius, 160);
  for (auto [radius, parts] : {std::pair{384, 3}, std::pair{449, 3}, std::pair{600, 4},
                               std::pair{1024, 7}}) {
    runs.push_back({radius, 1130, across, "horizontal", parts});
    runs.push_back({radius, across, 1130, "vertical", parts});
  }
  runs.push_back({500, 1130, across, "both", 4});
  for (const Run& r : runs) {
    const passes::BlurPrepared plan = FastPlan(caps, r.radius, r.w, r.h, r.axes);
    for (const passes::StepKernel& k : plan.steps) {
      EXPECT_EQ(k.details.find(absl::StrCat("taps in ", r.parts, " parts")) != std::string::npos,
                matrix)
          << k.details;
      // Both axes split: the temporary between them in tiles of 4 x 16.
      EXPECT_EQ(k.details.find("temporary in tiles of 4 x 16") != std::string::npos,
                matrix && std::string(r.axes) == "both")
          << k.details;
    }
    Case c{"fast", r.w, r.h, r.radius};
    c.border = kBorders[b++ % 4];
    c.axes = r.axes;
    c.working = PixelFormat::kRgba16F;
    c.max_taps = 2 * r.radius + 1;
    worst = std::max(worst, CheckAgainstReference(c, seed++));
  }
  std::printf("worst error over these images %.2e (tolerance %.1e)\n", worst, 1.5e-3);
}

// Both axes streamed up to r = 24 pass through a temporary in tiles of 4 x
// 16 pixels, padded to whole tiles (fast.cc, TileTheTemporary): odd sizes
// (1130 = 282 tiles and 2 pixels across, 601 = 37 tiles and 9 rows down),
// every border, radii whose row pass computes one tile per step (the row
// pass's wide stores: r = 7, 8, 24) and two (r = 16, 17). A pixel stored
// in one tile and loaded from another, or padding read as an image pixel,
// fails against the reference. Without matrix units (lavapipe) nothing
// streams: the same cases, 21 lines instead of 601, run the line paths,
// and the test says so.
TEST_F(BlurVariantsTest, FastTiledTemporaryMatchesReference) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  const bool matrix = SayMatrixUnits(
      "matrix units: both axes stream through a tiled temporary on 1130 x 601 and 601 x 1130",
      "no matrix units: nothing streams here, the line paths run on 1130 x 21 and 21 x 1130 "
      "(the tiled temporary is checked on a device with them, see docs/blur/h100-tests-*.txt)");
  const int across = matrix ? 601 : 21;
  uint32_t seed = 1200;
  double worst = 0;
  for (int radius : {7, 8, 16, 17, 24}) {
    for (auto [w, h] : {std::pair{1130, across}, std::pair{across, 1130}}) {
      if (matrix) {
        const passes::BlurPrepared plan = FastPlan(caps, radius, w, h, "both");
        ASSERT_EQ(plan.steps.size(), 2u);
        EXPECT_THAT(plan.steps[0].details, ::testing::HasSubstr("stores the temporary in tiles"));
        EXPECT_THAT(plan.steps[1].details, ::testing::HasSubstr("loads the temporary in tiles"));
        EXPECT_EQ(plan.steps[0].details.find("4 lines x 8 px an instruction") != std::string::npos,
                  passes::FastStreamShapeFor(radius, false, false).tiles_per_step == 1);
      }
      for (const char* border : kBorders) {
        Case c{"fast", w, h, radius};
        c.border = border;
        worst = std::max(worst, CheckAgainstReference(c, seed++));
      }
    }
  }
  std::printf("worst error over these images %.2e (tolerance %.1e)\n", worst, 1.5e-3);
}

// Shapes the table does not pick, set the way rgfx-gpu-bench's
// --sweep_stream_shapes sets them, must blur as exactly: four tiles per
// step (segments of 11 tiles below r = 65: the last step computes one tile
// it does not store; 12 from there, where 768 subgroups suffice), deeper
// queues, 2 and 4 subgroups per workgroup, blocks in registers with one and
// four tiles per step (which the RGBA32F build ignores), two accumulator
// chains in the column passes (r = 64 with one subgroup, r = 40 with two),
// every border.
// Without matrix units (lavapipe) the override must change nothing: the
// same cases, 21 lines instead of 601, run the line paths, and the test
// says so.
TEST_F(BlurVariantsTest, FastMatrixStreamShapesMatchReference) {
  const gpu::DeviceCaps& caps = testing::SharedGpu().device->caps();
  const bool matrix = SayMatrixUnits(
      "matrix units: the streamed kernel runs in each shape",
      "no matrix units: the shapes are ignored, the line paths run (the "
      "streamed kernel's shapes are checked on a device with them, see "
      "docs/blur/h100-tests-*.txt)");
  const int across = matrix ? 601 : 21;
  struct Restore {
    ~Restore() { passes::SetFastStreamShapeOverride(std::nullopt); }
  } restore;
  const std::pair<int, const char*> cases[] = {
      {5, "12:4:4:1"},  {17, "16:8:4:1"}, {64, "24:4:4:1"},       {100, "20:4:4:2"},
      {48, "24:2:2:4"}, {33, "24:4:1:1"}, {64, "24:4:4:1:1:1"}, {17, "16:4:1:2:1:1"},
      {64, "24:2:2:1:2"}, {40, "24:2:2:2:2"}};
  uint32_t seed = 950;
  double worst = 0, worst32 = 0;
  for (const auto& [radius, text] : cases) {
    auto shape = passes::ParseFastStreamShape(text);
    ASSERT_TRUE(shape.ok()) << shape.status();
    passes::SetFastStreamShapeOverride(*shape);
    // Both formats: the RGBA32F build of the kernel (fp16 in bands) runs
    // in every shape too, four tiles per step included, which its own
    // table does not choose.
    for (auto [w, h, working] : {std::tuple{1130, across, PixelFormat::kRgba16F},
                                 std::tuple{across, 1130, PixelFormat::kRgba16F},
                                 std::tuple{1130, across, PixelFormat::kRgba32F},
                                 std::tuple{across, 1130, PixelFormat::kRgba32F}}) {
      Case c{"fast", w, h, radius};
      c.border = kBorders[seed % 4];
      c.axes = w > h ? "horizontal" : "vertical";
      c.working = working;
      if (working == PixelFormat::kRgba32F) c.min_psnr_db = kAllowScaledHalfDb;
      SCOPED_TRACE(text);
      const std::string details = FastLineStepDetails(caps, radius, w, h);
      if (matrix) {
        EXPECT_THAT(details, ::testing::HasSubstr(TilesPerStepWords(shape->tiles_per_step)));
        EXPECT_THAT(details, ::testing::HasSubstr(radius > 64 ? "along 192 outputs"
                                                              : "along 176 outputs"));
        EXPECT_THAT(details,
                    ::testing::HasSubstr(absl::StrCat(4 * shape->warps, " lines per workgroup")));
      } else {
        EXPECT_THAT(details, ::testing::Not(::testing::HasSubstr("streamed")));
      }
      const double error = CheckAgainstReference(c, seed++);
      if (working == PixelFormat::kRgba16F) worst = std::max(worst, error);
      if (working == PixelFormat::kRgba32F) worst32 = std::max(worst32, error);
    }
  }
  std::printf("worst error over these shapes %.2e (tolerance %.1e); RGBA32F %.2e (tolerance %s)\n",
              worst, 1.5e-3, worst32,
              matrix ? absl::StrFormat("%.1e, the fp16 bands' bound", kScaledHalfAxisTolerance).c_str()
                     : "fp32's, 2.4e-5 plus 1.2e-7 a tap");
}

// fast in RGBA32F on matrix units: each block of 16 pixels of 4 lines
// enters fp16 scaled by its magnitude band, steps across bands run in
// fp32, so the error is bounded relative to the largest magnitude in
// reach, at any scale. Checked on lines made of pieces of 100 pixels whose
// amplitudes differ by up to 10^12 (each piece's noise times 10^u, u
// uniform in [-6, 6]): every output within kScaledHalfAxisTolerance of the
// largest amplitude its window reaches (through the border) across its
// aligned group of 4 lines (one axis), every border. That is stricter than
// the plan's statement, which counts the whole 16-pixel blocks the window
// reads (a block's scale follows its largest value, which may lie up to 15
// pixels beyond the window): with pieces of 100 pixels the two rarely
// differ, and the GPU-free FastScaledHalf.TheBoundHoldsAgainstTheBlocksRead
// models where they do; whole images scaled
// by 1e-6 and 3e6 (beyond fp16's 65504) on both axes; an inf and a NaN,
// which must reach exactly the outputs whose window holds them, as in
// fp32; at radii that run one and two tiles per step (the shapes test
// runs four).
// Without matrix units fast runs its fp32 line paths here, which must meet
// the same bounds, and the test says so.
TEST_F(BlurVariantsTest, FastRgba32FOnMatrixUnitsHoldsItsBoundAtAnyScale) {
  const bool matrix = SayMatrixUnits(
      "matrix units: RGBA32F streams through fp16 in magnitude bands",
      "no matrix units: fp32 line paths (the fp16 path is checked on a device "
      "with them, see docs/blur/h100-tests-*.txt)");
  const int across = matrix ? 601 : 23;
  constexpr int kPiece = 100;
  std::mt19937 rng(4242);
  double worst_relative = 0;
  int index = 0;
  for (int radius : {7, 32, 40, 64, 100}) {
    for (auto [w, h] : {std::pair{1130, across}, std::pair{across, 1130}}) {
      Case c{"fast", w, h, radius};
      c.working = PixelFormat::kRgba32F;
      c.min_psnr_db = kAllowScaledHalfDb;
      c.border = kBorders[index++ % 4];
      c.axes = w > h ? "horizontal" : "vertical";
      SCOPED_TRACE(c.Name());
      EXPECT_EQ(FastScaledHalf(c), matrix);
      const MixedAmplitudes mixed = MixedAmplitudeImage(w, h, kPiece, rng);
      const bool rows = mixed.rows;
      const int lines = mixed.lines, n = mixed.n, pieces = mixed.pieces;
      const std::vector<double>& amplitude = mixed.amplitude;
      const ImageD& image = mixed.image;
      // The largest amplitude output i of a group's lines reaches.
      const testing::Border border = testing::ParseBorder(c.border);
      std::vector<double> reach(size_t((lines + 3) / 4) * n, 0.0);
      for (int g = 0; g < (lines + 3) / 4; ++g) {
        for (int i = 0; i < n; ++i) {
          double& r = reach[size_t(g) * n + i];
          for (int d = -radius; d <= radius; ++d) {
            const int at = testing::BorderIndex(i + d, n, border);
            if (at < 0) continue;
            for (int l = 4 * g; l < std::min(4 * g + 4, lines); ++l) {
              r = std::max(r, amplitude[size_t(l) * pieces + at / kPiece]);
            }
          }
        }
      }
      const absl::StatusOr<ImageD> got = Blur(c, image);
      ASSERT_TRUE(got.ok()) << got.status();
      const ImageD want = Reference(c, testing::EncodeClient(image, PixelFormat::kRgba32F));
      int failures = 0;
      for (size_t i = 0; i < want.v.size(); ++i) {
        const int x = int(i / 4 % w), y = int(i / 4 / w);
        const int line = rows ? y : x, at = rows ? x : y;
        const double r = reach[size_t(line / 4) * n + at];
        const double relative = std::abs(got->v[i] - want.v[i]) / r;
        worst_relative = std::max(worst_relative, relative);
        if (!(relative <= kScaledHalfAxisTolerance) && ++failures <= 5) {
          ADD_FAILURE() << "pixel (" << x << ", " << y << ") channel " << i % 4 << ": got "
                        << got->v[i] << ", want " << want.v[i] << ", error " << relative
                        << " of the amplitude in reach " << r;
        }
      }
    }
  }
  for (double scale : {1e-6, 3e6}) {
    Case c{"fast", 1130, across, 64};
    c.working = PixelFormat::kRgba32F;
    c.min_psnr_db = kAllowScaledHalfDb;
    SCOPED_TRACE(c.Name());
    std::mt19937 seeded(77);
    ImageD image{c.width, c.height, std::vector<double>(size_t(c.width) * c.height * 4)};
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (double& v : image.v) v = scale * unit(seeded);
    const absl::StatusOr<ImageD> got = Blur(c, image);
    ASSERT_TRUE(got.ok()) << got.status();
    const ImageD want = Reference(c, testing::EncodeClient(image, PixelFormat::kRgba32F));
    double worst = 0;
    for (size_t i = 0; i < want.v.size(); ++i) {
      worst = std::max(worst, std::abs(got->v[i] - want.v[i]) / scale);
    }
    EXPECT_LE(worst, 2 * kScaledHalfAxisTolerance) << "scale " << scale;
    std::printf("scale %g, both axes: worst error %.2e of the scale\n", scale, worst);
  }
  {
    // One row: an inf at x = 300 (channel 0) and a NaN at x = 700 (channel
    // 1): outputs within the radius of them are not finite in that channel;
    // up to 16 beyond they may be (the fp32 line paths' last block of 8
    // reads up to 7 pixels past the window under zero weights, and 0 · inf
    // is NaN); every other output is finite and within the bound.
    Case c{"fast", 1130, across, 40};
    c.working = PixelFormat::kRgba32F;
    c.min_psnr_db = kAllowScaledHalfDb;
    c.axes = "horizontal";
    SCOPED_TRACE(c.Name());
    std::mt19937 seeded(78);
    ImageD image{c.width, c.height, std::vector<double>(size_t(c.width) * c.height * 4)};
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    for (double& v : image.v) v = unit(seeded);
    const int row = 9;
    image.v[(size_t(row) * c.width + 300) * 4 + 0] = INFINITY;
    image.v[(size_t(row) * c.width + 700) * 4 + 1] = NAN;
    const absl::StatusOr<ImageD> got = Blur(c, image);
    ASSERT_TRUE(got.ok()) << got.status();
    image.v[(size_t(row) * c.width + 300) * 4 + 0] = 0;
    image.v[(size_t(row) * c.width + 700) * 4 + 1] = 0;
    const ImageD want = Reference(c, testing::EncodeClient(image, PixelFormat::kRgba32F));
    int failures = 0;
    for (size_t i = 0; i < want.v.size(); ++i) {
      const int x = int(i / 4 % c.width), y = int(i / 4 / c.width), ch = int(i % 4);
      const int from = y != row || ch > 1 ? 1 << 20 : std::abs(x - (ch == 0 ? 300 : 700));
      const bool close = std::abs(got->v[i] - want.v[i]) <= kScaledHalfAxisTolerance;
      const bool ok = from <= c.radius        ? !std::isfinite(got->v[i])
                      : from <= c.radius + 16 ? !std::isfinite(got->v[i]) || close
                                              : close;
      if (!ok && ++failures <= 5) {
        ADD_FAILURE() << "pixel (" << x << ", " << y << ") channel " << ch << ": got "
                      << got->v[i] << ", want "
                      << (from <= c.radius ? "not finite" : absl::StrCat(want.v[i]));
      }
    }
  }
  std::printf("worst error over the pieces of mixed amplitude %.2e of the amplitude in reach "
              "(tolerance %.1e)\n", worst_relative, kScaledHalfAxisTolerance);
}

// RGBA32F through `fast` in the shapes where its streamed kernel (on matrix
// units) once gave garbage: lines of 3 to 1920 pixels, 601 to 16384 lines,
// wrap and clamp, each axis alone, r = 16 to 64 (on the H100 a shared array
// laid before the ring put the ring's matrix loads 8 bytes off at r = 64).
// Elsewhere the line paths run the same cases.
TEST_F(BlurVariantsTest, Rgba32FInTheShapesThatOnceFailed) {
  struct D { int w, h, r; const char* border; const char* axes; };
  for (D d : {D{3, 16384, 64, "wrap", "both"}, D{3, 4096, 64, "wrap", "horizontal"},
              D{3, 4096, 64, "clamp", "horizontal"}, D{20, 4096, 64, "clamp", "horizontal"},
              D{40, 4096, 64, "clamp", "horizontal"}, D{1920, 1080, 64, "clamp", "horizontal"},
              D{1920, 1080, 48, "clamp", "horizontal"}, D{1920, 1080, 16, "clamp", "horizontal"},
              D{1920, 1080, 64, "clamp", "vertical"}, D{1130, 601, 64, "clamp", "horizontal"}}) {
    Case c{"fast", d.w, d.h, d.r};
    c.working = PixelFormat::kRgba32F;
    c.min_psnr_db = kAllowScaledHalfDb;
    c.border = d.border;
    c.axes = d.axes;
    const double worst = CheckAgainstReference(c, 5);
    std::printf("%dx%d r=%d %s %s: worst error %.3e\n", d.w, d.h, d.r, d.border, d.axes, worst);
  }
}

// fast in RGBA32F keeps fp32 accuracy unless the request allows the fp16
// path: min_psnr_db 0, or above the PSNR the fp16 path states, runs the
// fp32 line paths (plan exact, fp32 tolerance) on any device; an allowance
// at or below it runs the fp16 path where there are matrix units (plan
// approximate, its own bound).
TEST_F(BlurVariantsTest, FastRgba32FIsExactUnlessAllowed) {
  const bool matrix = testing::SharedGpu().device->caps().f16_matrix_product_16;
  uint32_t seed = 960;
  for (double allow : {0.0, 70.0, kAllowScaledHalfDb}) {
    Case c{"fast", 1130, 601, 64};
    c.working = PixelFormat::kRgba32F;
    c.min_psnr_db = allow;
    SCOPED_TRACE(c.Name());
    EXPECT_EQ(FastScaledHalf(c), matrix && allow == kAllowScaledHalfDb);
    const double worst = CheckAgainstReference(c, seed++);
    std::printf("min_psnr_db %g: %s, worst error %.2e\n", allow,
                FastScaledHalf(c) ? "fp16 in bands" : "fp32", worst);
  }
}

TEST_F(BlurVariantsTest, SingleAxisAndExplicitSigma) {
  for (const char* variant : kExactVariants) {
    for (const char* axes : {"horizontal", "vertical"}) {
      Case c{variant};
      c.axes = axes;
      c.radius = 7;
      c.border = "mirror";
      CheckAgainstReference(c, 300);
    }
    Case c{variant};
    c.radius = 10;
    c.sigma = 1.5;
    c.working = PixelFormat::kRgba32F;
    CheckAgainstReference(c, 301);
  }
}

// Lines longer than the workgroup caches (4096 RGBA16F / 2048 RGBA32F pixels
// with 32 KB) run in chunks with a halo.
TEST_F(BlurVariantsTest, LinesOf16384PixelsRunInChunks) {
  // Each shape blurs a 16384-pixel line in one of its steps.
  for (const char* variant : kExactVariants) {
    Case wide{variant, 16384, 3, 64};
    wide.border = "mirror";
    wide.max_taps = 129;
    CheckAgainstReference(wide, 500);
    Case tall{variant, 3, 16384, 64};
    tall.border = "wrap";
    tall.working = PixelFormat::kRgba32F;
    tall.max_taps = 129;
    CheckAgainstReference(tall, 501);
  }
}

TEST_F(BlurVariantsTest, RadiusLargerThanTheImage) {
  for (const char* variant : kExactVariants) {
    for (const char* border : {"clamp", "mirror", "wrap", "zero"}) {
      Case c{variant, 37, 29, 1024};
      c.border = border;
      c.max_taps = 2049;
      CheckAgainstReference(c, 400);
    }
  }
}

TEST_F(BlurVariantsTest, RefusesWhatAVariantCannotDoNamingTheLimit) {
  std::mt19937 rng(7);
  // The limits follow the device's shared memory: an RGBA32F pixel takes 16
  // bytes, so a line cache holds shared/16 pixels (2048 on lavapipe's 32 KB,
  // 3072 on the H100's 48 KB) and chunks need 2·radius below that.
  const uint32_t cache_pixels =
      testing::SharedGpu().device->caps().max_compute_shared_memory_bytes / 16;
  for (const char* variant : {"line_cache", "symmetric", "tuned"}) {
    Case c{variant, 16384, 2, static_cast<int>(cache_pixels / 2)};
    c.working = PixelFormat::kRgba32F;
    auto run = testing::RunGraph(Graph(c), {Noise(c.width, c.height, rng)});
    ASSERT_FALSE(run.ok()) << variant;
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(run.status().message()),
                ::testing::AllOf(::testing::HasSubstr("'blur'"), ::testing::HasSubstr(variant),
                                 ::testing::HasSubstr(absl::StrCat("2·radius < ", cache_pixels))));
  }
  // tiled_halo: a 256-pixel tile plus a halo of radius on each side.
  const int max_halo_radius = static_cast<int>((cache_pixels - 256) / 2);
  Case c{"tiled_halo", 37, 29, max_halo_radius + 1};
  c.working = PixelFormat::kRgba32F;
  auto run = testing::RunGraph(Graph(c), {Noise(c.width, c.height, rng)});
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(run.status().message()),
              ::testing::HasSubstr(absl::StrCat("radius <= ", max_halo_radius)));
}

// fast keeps its zero-padded weights in shared memory, four to a vec4: the
// largest radius it names in its refusal must run (and blur exactly: the
// shader's arrays fit the device's shared memory at that radius), one more
// must be refused naming the same limit.
TEST_F(BlurVariantsTest, FastRunsUpToTheRadiusItsRefusalNames) {
  std::mt19937 rng(9);
  // The largest radius a request may carry (gaussian_blur's parameter).
  constexpr int kMaxRadius = 4096;
  const int shared =
      static_cast<int>(testing::SharedGpu().device->caps().max_compute_shared_memory_bytes);
  for (const PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    Case probe{"fast", 23, 7, kMaxRadius};
    probe.working = working;
    probe.max_taps = 2 * kMaxRadius + 1;
    SCOPED_TRACE(probe.Name());
    auto refused = testing::RunGraph(Graph(probe), {Noise(probe.width, probe.height, rng)});
    if (refused.ok()) {
      // 48 KB and more (the H100): every radius a request may carry fits.
      EXPECT_GT(shared / 4 / 2, kMaxRadius + 2 * 8 + 3 + 16);
      std::printf("fast takes every radius up to %d with %d bytes of shared memory\n", kMaxRadius,
                  shared);
      CheckAgainstReference(probe, 10);
      continue;
    }
    EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
    const std::string message(refused.status().message());
    const size_t at = message.find("radius <= ");
    ASSERT_NE(at, std::string::npos) << message;
    const int largest = std::atoi(message.c_str() + at + 10);
    // Each weight takes 4 bytes, 2·radius + 1 of them at least, with 2·8 of
    // zeros each side, whole vec4s and 8 pixels of 8 or 16 bytes.
    EXPECT_GT(largest, shared / 4 / 2 - 40) << message;
    EXPECT_LT(largest, shared / 4 / 2) << message;
    Case beyond = probe;
    beyond.radius = largest + 1;
    auto run = testing::RunGraph(Graph(beyond), {Noise(beyond.width, beyond.height, rng)});
    ASSERT_FALSE(run.ok());
    EXPECT_THAT(std::string(run.status().message()),
                ::testing::HasSubstr(absl::StrCat("radius <= ", largest, " here")));
    Case c = probe;
    c.radius = largest;
    CheckAgainstReference(c, 10);
  }
}

// decimated against the exact variant on uniform noise, the case its stated
// PSNR is computed for; with wrap the noise stays stationary at the borders,
// so the measurement must meet the prediction (1 dB for sampling noise).
// Clamp repeats the edge pixel under many taps: on an image 4 radii wide it
// measured 3.8 dB below the prediction (the note says so); zero loses ~0.2.
TEST_F(BlurVariantsTest, DecimatedMeetsItsStatedPsnr) {
  struct PsnrCase {
    int width, height, radius;
    std::string axes;
    PixelFormat working;
    std::string border;
    double margin_db;
  };
  // Wrap needs the image wider than the kernel for the noise to stay
  // independent under it.
  const PsnrCase cases[] = {{257, 251, 64, "both", PixelFormat::kRgba16F, "wrap", 1},
                            {257, 251, 64, "both", PixelFormat::kRgba32F, "wrap", 1},
                            {1801, 9, 300, "horizontal", PixelFormat::kRgba32F, "wrap", 1},
                            {257, 251, 64, "both", PixelFormat::kRgba16F, "clamp", 5},
                            {257, 251, 64, "both", PixelFormat::kRgba16F, "zero", 3}};
  std::mt19937 rng(800);
  for (const PsnrCase& p : cases) {
    Case c{"decimated", p.width, p.height, p.radius};
    c.axes = p.axes;
    c.border = p.border;
    c.working = p.working;
    SCOPED_TRACE(c.Name());
    const Bytes input = Noise(c.width, c.height, rng);
    auto approx = testing::RunGraph(Graph(c), {input});
    ASSERT_TRUE(approx.ok()) << approx.status();
    Case e = c;
    e.variant = "exact";
    auto exact = testing::RunGraph(Graph(e), {input});
    ASSERT_TRUE(exact.ok()) << exact.status();
    const double predicted = passes::DecimatedNoisePsnr(
        c.radius, c.radius / 2.0, passes::ChooseDecimatedTaps(c.radius, 64), c.axes == "both");
    const ImageD a = Decode(approx->outputs[0], c);
    const ImageD x = Decode(exact->outputs[0], c);
    const double measured = passes::Psnr(x.v, a.v);
    std::printf("decimated %s: predicted %.2f dB, measured %.2f dB\n", c.Name().c_str(), predicted,
                measured);
    EXPECT_GE(measured, predicted - p.margin_db) << "predicted " << predicted;
    EXPECT_LT(measured, predicted + 6) << "the statement should not be far too pessimistic";
  }
}

TEST_F(BlurVariantsTest, AutoPicksAnExactVariantAndReportsIt) {
  std::mt19937 rng(900);
  for (int radius : {0, 5, 300, 2000}) {
    Case c{"auto", 37, 29, radius};
    const Bytes input = Noise(c.width, c.height, rng);
    auto run = testing::RunGraph(Graph(c), {input});
    ASSERT_TRUE(run.ok()) << run.status();
    const std::string chosen = run->timings.passes[1].variant;
    EXPECT_THAT(chosen, ::testing::AnyOf("exact", "naive", "line_cache", "symmetric", "tuned",
                                         "tiled_halo", "fast"));
    c.variant = chosen;
    CheckAgainstReference(c, 900 + radius);
  }
}

// The rule itself, for a GPU and for lavapipe (no device needed to plan).
TEST(AutoBlurVariant, FollowsTheMeasuredRule) {
  gpu::DeviceCaps gpu = gpu::LavapipeLikeCaps();
  gpu.type = "discrete";
  gpu.max_compute_shared_memory_bytes = 48 << 10;
  const graph::Extent hd{1920, 1080};
  EXPECT_EQ(passes::AutoBlurVariant(gpu, PixelFormat::kRgba16F, 0, hd), "exact");
  // A device the table does not know (vendor and device id 0): the
  // fallback, fast at every radius on GPUs (its small-radius tile beats
  // exact 1.5-2.6x on both measured GPUs).
  EXPECT_EQ(passes::AutoBlurVariant(gpu, PixelFormat::kRgba16F, 4, hd), "fast");
  EXPECT_EQ(passes::AutoBlurVariant(gpu, PixelFormat::kRgba16F, 64, hd), "fast");
  EXPECT_EQ(passes::AutoBlurVariant(gpu, PixelFormat::kRgba32F, 2000, hd), "fast");
  const gpu::DeviceCaps cpu = gpu::LavapipeLikeCaps();
  EXPECT_EQ(passes::AutoBlurVariant(cpu, PixelFormat::kRgba16F, 4, hd), "tiled_halo");
}

TEST_F(BlurVariantsTest, ConstantImageStaysConstant) {
  for (const char* variant : kExactVariants) {
    for (const char* border : {"clamp", "mirror", "wrap"}) {
      Case c{variant, 33, 17, 5};
      c.border = border;
      SCOPED_TRACE(c.Name());
      ImageD flat{33, 17, std::vector<double>(33 * 17 * 4)};
      for (size_t i = 0; i < flat.v.size(); ++i) flat.v[i] = i % 4 == 3 ? 0.75 : 0.25 + 0.125 * (i % 4);
      const Bytes input = testing::EncodeClient(flat, PixelFormat::kRgba32F);
      auto run = testing::RunGraph(Graph(c), {input});
      ASSERT_TRUE(run.ok()) << run.status();
      const ImageD got = Decode(run->outputs[0], c);
      for (size_t i = 0; i < flat.v.size(); ++i) {
        ASSERT_NEAR(got.v[i], flat.v[i], 2e-6) << "value " << i;
      }
    }
  }
}

}  // namespace
}  // namespace rgfx
