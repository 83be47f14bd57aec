// The plan of gaussian_blur "large_radius" without a GPU: the recursive
// path where it can run (its geometry, the extended line of mirror and
// wrap, and each case that falls back to the box stack); for the box stack
// (forced with SetLargeRadiusBoxesOnly): which path each
// axis takes (fused, one dispatch with the prefix sums in shared memory,
// where the lines fit; two dispatches through a temporary otherwise), the
// fused geometry (every pixel has a scanning invocation, shared memory
// within the device's limit, odd segments), the temporaries each
// combination needs, and that the stated accuracy stays above the 50 dB the
// issue asks for on both paths. large_radius_tests runs both paths on the
// GPU against the double-precision reference.
#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "passes/blur_variants/blur_variant.h"
#include "tests/passes/variant_plan.h"
#include "passes/blur_variants/large_radius.h"
#include "passes/blur_variants/recursive_fit.h"
#include "passes/gaussian_weights.h"
#include "passes/shader_interface.h"

namespace rgfx {
namespace {

using graph::PixelFormat;
using passes::BlurConfig;
using passes::BlurPrepared;
using passes::FusedGeometry;
using testing::HasSubstr;

gpu::DeviceCaps H100Caps() {
  gpu::DeviceCaps caps;
  caps.name = "test device (H100 limits)";
  caps.max_compute_shared_memory_bytes = 48 << 10;
  caps.subgroup_size = 32;
  caps.subgroup_shuffle_relative = true;
  return caps;
}

BlurConfig Config(uint32_t width, uint32_t height, int radius, gpu::DeviceCaps caps,
                  std::string axes = "both") {
  BlurConfig c;
  c.pass_name = "blur";
  c.radius = radius;
  c.sigma = radius / 2.0;
  c.border = RGFX_BORDER_MIRROR;
  c.axes = axes;
  c.extent = {width, height};
  c.working = PixelFormat::kRgba16F;
  c.caps = caps;
  return c;
}

using Planned = plan_test::PlannedVariant;

Planned Plan(const BlurConfig& config) { return plan_test::PlanVariant("large_radius", config); }

// The plan at r = 64 with the H100's limits for a width x height image in
// `working`.
Planned PlanImage(uint32_t width, uint32_t height, PixelFormat working,
                  uint32_t border = RGFX_BORDER_MIRROR) {
  BlurConfig config = Config(width, height, 64, H100Caps());
  config.working = working;
  config.border = border;
  return Plan(config);
}

bool Fused(const passes::StepKernel& k) { return k.details.starts_with("fused"); }
bool Recursive(const passes::StepKernel& k) { return k.details.starts_with("recursive"); }

// Plans made while one lives use the box stack.
struct BoxesOnly {
  BoxesOnly() { passes::SetLargeRadiusBoxesOnly(true); }
  ~BoxesOnly() { passes::SetLargeRadiusBoxesOnly(false); }
};

TEST(LargeRadiusPlan, FullHdOnAnH100TakesTheRecursivePath) {
  for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    for (int radius : {8, 16, 64, 256, 1024}) {
      SCOPED_TRACE(absl::StrCat("radius ", radius, " ", std::string(graph::PixelFormatName(working))));
      BlurConfig config = Config(1920, 1080, radius, H100Caps());
      config.border = RGFX_BORDER_CLAMP;
      config.working = working;
      const Planned p = Plan(config);
      ASSERT_EQ(p.prepared.steps.size(), 2u);
      ASSERT_EQ(p.plan.steps.size(), 2u);
      ASSERT_EQ(p.plan.temp_extents.size(), 1u);  // the intermediate image only
      ASSERT_EQ(p.plan.constants.size(), 1u);
      EXPECT_EQ(p.plan.constants[0].size(), 12 * sizeof(float));
      const passes::StepKernel& h = p.prepared.steps[0];
      const passes::StepKernel& v = p.prepared.steps[1];
      EXPECT_TRUE(Recursive(h)) << h.details;
      EXPECT_TRUE(Recursive(v)) << v.details;
      // threads, lines per workgroup, capacity, columns, subgroup size,
      // extended, pixels per chunk, margins (0 none, 1 full, 2 one pixel
      // with clamped reads). Rows: 1920 px need 120 chunks of 16, so 128
      // slots; spread over them, 128 chunks of 15. The strip holds
      // radius + 1 more pixels at each end (rounded up to 64) where they
      // fit 48 KB and cost no occupancy: RGBA16F rows up to r = 64 (5
      // workgroups a multiprocessor by registers; 18.0 KB at r = 64, 21.6
      // KB at r = 256 allow only 4), never RGBA32F rows (3 workgroups of
      // 33.0 KB without, 2 of 34.1 KB or more with). Elsewhere one pixel
      // at each end (clamp border): RGBA16F 1922 px rounded up to 1984,
      // RGBA32F exact (1984 px would be 34.1 KB). Then the temporary's
      // strips as read and written: in RGBA32F the rows store it in strips
      // of the columns' 2 a workgroup (32 bytes a strip's row), in RGBA16F
      // not (16: it lost).
      const uint32_t margin = static_cast<uint32_t>(radius) + 1;
      const auto capacity = [&](uint32_t n) { return (n + 2 * margin + 63) / 64 * 64; };
      const bool rows_margined = working == PixelFormat::kRgba16F && radius <= 64;
      const uint32_t rows_clamped = working == PixelFormat::kRgba16F ? 1984 : 1922;
      EXPECT_EQ(h.spec.values,
                (std::vector<uint32_t>{128, 1, rows_margined ? capacity(1920) : rows_clamped, 0, 32,
                                       0, 15, rows_margined ? 1u : 2u, 1,
                                       working == PixelFormat::kRgba32F ? 2u : 1u}));
      EXPECT_EQ(h.groups_x, 1080u);
      EXPECT_EQ(h.details.find("stores the temporary in strips of 2 columns") != std::string::npos,
                working == PixelFormat::kRgba32F)
          << h.details;
      EXPECT_EQ(p.plan.temp_extents[0], (graph::Extent{1920, 1080}));
      EXPECT_THAT(h.details, HasSubstr(rows_margined ? "with margins of " : "reads clamped"));
      // Columns: RGBA32F 1080 px need 68 chunks of 16, so 96 slots; spread
      // over them, 90 chunks of 12. RGBA16F ones take chunks of up to 17:
      // 64 chunks, 64 slots, of 17. Two columns per workgroup, with
      // margins where they fit and cost no occupancy: RGBA32F up to r = 64
      // (2 workgroups by shared memory either way); RGBA16F up to r = 16
      // (5 workgroups of 128 by registers; 1,114 px exact keep 5, rounded
      // up to 1,152 only 4, and r = 64's 1,210 px only 4 either way). Else
      // one pixel at each end, 1082 px rounded up to 1088 (what the line
      // alone takes).
      const bool half = working == PixelFormat::kRgba16F;
      const bool margined = half ? radius <= 16 : radius <= 64;
      const uint32_t columns_capacity = !margined ? 1088 : half ? 1080 + 2 * margin : capacity(1080);
      EXPECT_EQ(v.spec.values,
                (std::vector<uint32_t>{half ? 128u : 192u, 2, columns_capacity, 1, 32, 0,
                                       half ? 17u : 12u, margined ? 1u : 2u, half ? 1u : 2u, 1}));
      EXPECT_EQ(v.groups_x, 960u);
      EXPECT_THAT(v.details, HasSubstr(margined ? "with margins of " : "reads clamped"));
      EXPECT_EQ(h.segment, 0u);  // no extension for clamp
      ASSERT_TRUE(p.prepared.accuracy.noise_psnr_db.has_value());
      EXPECT_GE(*p.prepared.accuracy.noise_psnr_db, radius >= 16 ? 80.0 : 70.0);
      EXPECT_THAT(p.prepared.accuracy.summary, HasSubstr("recursive damped cosine"));
    }
  }
}

// Rows too long for whole pixels in shared memory run two channels a
// workgroup (two neighbouring workgroups a row); columns never do.
TEST(LargeRadiusPlan, LongLinesRunTwoChannelsAWorkgroup) {
  const auto channel_pairs = [](const passes::StepKernel& k) {
    return k.details.find("two channels") != std::string::npos;
  };
  struct Expect {
    int width, height;
    PixelFormat working;
    bool rows_pairs;
  };
  // RGBA32F: 1920 px = 33 KB fit whole, 3840 px = 66 KB do not; RGBA16F:
  // 8000 px = 68 KB do not, 4000 = 34 KB do.
  const Expect cases[] = {{1920, 1080, PixelFormat::kRgba32F, false},
                          {3840, 2160, PixelFormat::kRgba32F, true},
                          {8000, 300, PixelFormat::kRgba16F, true},
                          {4000, 4000, PixelFormat::kRgba16F, false}};
  for (const Expect& e : cases) {
    SCOPED_TRACE(absl::StrCat(e.width, "x", e.height, " ",
                              std::string(graph::PixelFormatName(e.working))));
    const Planned p = PlanImage(e.width, e.height, e.working);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    const passes::StepKernel& h = p.prepared.steps[0];
    const passes::StepKernel& v = p.prepared.steps[1];
    EXPECT_TRUE(Recursive(h)) << h.details;
    EXPECT_TRUE(Recursive(v)) << v.details;
    EXPECT_EQ(channel_pairs(h), e.rows_pairs) << h.details;
    EXPECT_FALSE(channel_pairs(v)) << v.details;
    EXPECT_EQ(h.groups_x, uint32_t(e.height) * (e.rows_pairs ? 2 : 1));
  }
  // Columns too long for whole pixels take the box stack; the rows still
  // run the recursion, two channels at a time.
  for (const auto& [width, height, working] :
       {std::tuple{4096, 4096, PixelFormat::kRgba32F}, {8192, 8192, PixelFormat::kRgba16F}}) {
    const Planned p = PlanImage(width, height, working);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    EXPECT_TRUE(channel_pairs(p.prepared.steps[0])) << p.prepared.steps[0].details;
    EXPECT_FALSE(Recursive(p.prepared.steps[1])) << p.prepared.steps[1].details;
  }
}

// Each axis takes its own method: where one axis's lines fit the
// recursion and the other's do not, the first runs it and the second the
// box stack. The plan then carries both constant blobs (each step names
// its own), the two-dispatch path's sums where that axis needs them, and
// states the PSNR of the pair: between the all-recursive and the
// all-boxes statements, and what the separable formula gives.
TEST(LargeRadiusPlan, EachAxisTakesItsOwnMethod) {
  struct Expect {
    uint32_t width, height;
    PixelFormat working;
    bool rows_recursive;
  };
  // 14000 px rows do not fit even two channels (56 KB); 8192-px RGBA16F
  // columns (64 KB) and 4096-px RGBA32F ones (64 KB) do not fit whole
  // pixels, and columns never take two channels.
  const Expect cases[] = {{14000, 300, PixelFormat::kRgba16F, false},
                          {300, 8192, PixelFormat::kRgba16F, true},
                          {4096, 4096, PixelFormat::kRgba32F, true}};
  for (const Expect& e : cases) {
    SCOPED_TRACE(absl::StrCat(e.width, "x", e.height));
    const Planned p = PlanImage(e.width, e.height, e.working);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    const passes::StepKernel& h = p.prepared.steps[0];
    const passes::StepKernel& v = p.prepared.steps[1];
    EXPECT_EQ(Recursive(h), e.rows_recursive) << h.details;
    EXPECT_EQ(Recursive(v), !e.rows_recursive) << v.details;
    const passes::StepKernel& boxes = e.rows_recursive ? v : h;
    EXPECT_THAT(boxes.details, HasSubstr("two dispatches"));
    // The recursion's constants (6 vec2), then the box table.
    ASSERT_EQ(p.plan.constants.size(), 2u);
    EXPECT_EQ(p.plan.constants[0].size(), 6 * 2 * sizeof(float));
    EXPECT_EQ(p.plan.constants[1].size(),
              passes::ChooseBoxStack(64, 32).coeffs.size() * 2 * sizeof(float));
    EXPECT_EQ((e.rows_recursive ? h : v).constants, 0);
    EXPECT_EQ(boxes.constants, 1);
    // The intermediate, then the sums only the box axis writes.
    ASSERT_EQ(p.plan.temp_extents.size(), 2u);
    const auto& box_step = p.plan.steps[e.rows_recursive ? 1 : 0];
    const auto& recursive_step = p.plan.steps[e.rows_recursive ? 0 : 1];
    EXPECT_EQ(box_step.writes.size(), 2u);
    EXPECT_EQ(recursive_step.writes.size(), 1u);
    EXPECT_THAT(p.prepared.accuracy.summary, HasSubstr("boxes (their lines do not fit"));

    const std::vector<double> g = passes::GaussianWeights(64, 32);
    const std::vector<double> recursive = passes::FitRecursiveGaussian(64, 32).Kernel(64);
    const std::vector<double> staircase = passes::ChooseBoxStack(64, 32).Kernel(64);
    const double pair = passes::MixedKernelNoisePsnr(g, e.rows_recursive ? recursive : staircase,
                                                     e.rows_recursive ? staircase : recursive);
    EXPECT_GT(pair, passes::KernelNoisePsnr(g, staircase, true));
    EXPECT_LT(pair, passes::KernelNoisePsnr(g, recursive, true));
    // The rounding (> 100 dB) moves the statement by less than 0.1 dB.
    ASSERT_TRUE(p.prepared.accuracy.noise_psnr_db.has_value());
    EXPECT_NEAR(*p.prepared.accuracy.noise_psnr_db, pair, 0.1);
    EXPECT_GE(*p.prepared.accuracy.noise_psnr_db, 50.0);
  }
}

// The separable statement: for equal kernels on both axes it is
// KernelNoisePsnr's two-axis one, and it matches the 2-D error kernel
// computed tap by tap.
TEST(LargeRadiusPlan, MixedKernelStatementIsTheTwoDimensionalError) {
  const std::vector<double> g = passes::GaussianWeights(20, 10);
  const std::vector<double> r = passes::FitRecursiveGaussian(20, 10).Kernel(20);
  const std::vector<double> b = passes::ChooseBoxStack(20, 10).Kernel(20);
  EXPECT_NEAR(passes::MixedKernelNoisePsnr(g, b, b), passes::KernelNoisePsnr(g, b, true), 1e-9);
  double squared = 0;
  for (int y = -20; y <= 20; ++y) {
    for (int x = -20; x <= 20; ++x) {
      const double e = g[std::abs(x)] * g[std::abs(y)] - r[std::abs(x)] * b[std::abs(y)];
      squared += e * e;
    }
  }
  EXPECT_NEAR(passes::MixedKernelNoisePsnr(g, r, b), -10 * std::log10(squared / 12), 1e-6);
  EXPECT_NEAR(passes::MixedKernelNoisePsnr(g, r, b), passes::MixedKernelNoisePsnr(g, b, r), 1e-9);
}

// Mirror and wrap run the recursions over the line extended by radius + 1
// on each side: more chunks, and the pipeline with the general border code.
TEST(LargeRadiusPlan, MirrorAndWrapExtendTheLine) {
  for (uint32_t border : {RGFX_BORDER_MIRROR, RGFX_BORDER_WRAP}) {
    BlurConfig config = Config(1920, 1080, 64, H100Caps());
    config.border = border;
    const Planned p = Plan(config);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    const passes::StepKernel& h = p.prepared.steps[0];
    EXPECT_TRUE(Recursive(h)) << h.details;
    EXPECT_EQ(h.segment, 65u);
    // (1920 + 130) / 16 -> 129 chunks, padded to 160; 2050 rounded up to
    // 2112 spread over them: chunks of 14. The strip holds 130 px more
    // at each end (the delayed reads reach 65 past the extension):
    // 1920 + 260 rounded up to 2240.
    EXPECT_EQ(h.spec.values, (std::vector<uint32_t>{160, 1, 2240, 0, 32, 1, 14, 1, 1, 1}));
    EXPECT_THAT(h.details, HasSubstr("extended by 65 px"));
  }
}

// Both axes recursive, columns two a workgroup, RGBA32F: the temporary in
// strips of 2 columns (the shader's kOutStrip for the rows, kInStrip for
// the columns), its width rounded up to whole strips; in RGBA16F (a strip's
// row 16 bytes) or turned off (0), the image's layout and width; a
// measurement's 4 (SetLargeRadiusStripTemporary) strips of 4 in either
// format, and 3 (not a multiple of the workgroup's 2 columns) none.
TEST(LargeRadiusPlan, TemporaryInStripsOfTheColumnsAWorkgroup) {
  struct Reset {
    ~Reset() { passes::SetLargeRadiusStripTemporary(1); }
  } reset;
  for (const uint32_t setting : {1u, 0u, 4u, 3u}) {
    for (const PixelFormat working : {PixelFormat::kRgba32F, PixelFormat::kRgba16F}) {
      SCOPED_TRACE(absl::StrCat(setting, " ", std::string(graph::PixelFormatName(working))));
      passes::SetLargeRadiusStripTemporary(setting);
      const uint32_t strip = setting == 4                                       ? 4
                             : setting == 1 && working == PixelFormat::kRgba32F ? 2
                                                                                : 1;
      const Planned p = PlanImage(1917, 1080, working, RGFX_BORDER_CLAMP);
      ASSERT_EQ(p.prepared.steps.size(), 2u);
      const passes::StepKernel& h = p.prepared.steps[0];
      const passes::StepKernel& v = p.prepared.steps[1];
      ASSERT_TRUE(Recursive(h) && Recursive(v));
      ASSERT_EQ(v.spec.values.at(1), 2u);  // two columns a workgroup
      EXPECT_EQ(p.plan.temp_extents.at(0),
                (graph::Extent{(1917 + strip - 1) / strip * strip, 1080}));
      EXPECT_EQ(h.spec.values.at(8), 1u);
      EXPECT_EQ(h.spec.values.at(9), strip);
      EXPECT_EQ(v.spec.values.at(8), strip);
      EXPECT_EQ(v.spec.values.at(9), 1u);
      EXPECT_EQ(h.details.find("strips") != std::string::npos, strip > 1) << h.details;
    }
  }
}

// The box stack runs instead where the recursive path cannot or should
// not: the box stack's exact kernels (radius < 8), no relative subgroup
// shuffles, a line too long for shared memory even two channels at a time
// (that axis only: EachAxisTakesItsOwnMethod), a sigma so small that the backward recursion's rounding
// would grow past kRecursiveMaxGrowth, and while SetLargeRadiusBoxesOnly
// holds.
TEST(LargeRadiusPlan, TheBoxStackWhereTheRecursionCannotRun) {
  const auto all_boxes = [](const Planned& p) {
    if (p.prepared.steps.empty()) return false;
    for (const passes::StepKernel& k : p.prepared.steps) {
      if (Recursive(k)) return false;
    }
    return true;
  };
  EXPECT_FALSE(all_boxes(Plan(Config(1920, 1080, 8, H100Caps()))));
  EXPECT_TRUE(all_boxes(Plan(Config(1920, 1080, 7, H100Caps()))));
  gpu::DeviceCaps no_shuffles = H100Caps();
  no_shuffles.subgroup_shuffle_relative = false;
  EXPECT_TRUE(all_boxes(Plan(Config(1920, 1080, 64, no_shuffles))));
  EXPECT_TRUE(all_boxes(Plan(Config(14000, 300, 64, H100Caps(), "horizontal"))));
  EXPECT_FALSE(all_boxes(Plan(Config(14000, 300, 64, H100Caps(), "vertical"))));
  BlurConfig sharp = Config(1920, 1080, 64, H100Caps());
  sharp.sigma = 1.0;
  EXPECT_TRUE(all_boxes(Plan(sharp)));
  sharp.sigma = 4.0;
  EXPECT_FALSE(all_boxes(Plan(sharp)));
  const BoxesOnly boxes;
  EXPECT_TRUE(all_boxes(Plan(Config(1920, 1080, 64, H100Caps()))));
}

// Plans made while one lives cap the recursive path's chunks at `most`
// pixels (rgfx-gpu-bench --large_radius_max_chunk).
struct MaxChunk {
  explicit MaxChunk(uint32_t most) { passes::SetLargeRadiusMaxChunk(most); }
  ~MaxChunk() { passes::SetLargeRadiusMaxChunk(0); }
};

// RGBA16F columns take chunks of up to 17 px (kRecursiveChunkHalfColumns):
// 1080-row columns in 64 chunks of 17 instead of 96 of 12; RGBA32F columns
// and rows keep 16 (1920-px rows: 128 chunks of 15 either way). The plan's
// rounding statement follows each axis's chunks.
TEST(LargeRadiusPlan, Rgba16fColumnsTakeChunksOfSeventeen) {
  EXPECT_EQ(passes::RecursiveMaxChunk(true, 8), 17u);
  EXPECT_EQ(passes::RecursiveMaxChunk(true, 16), 16u);
  EXPECT_EQ(passes::RecursiveMaxChunk(false, 8), 16u);
  EXPECT_EQ(passes::RecursiveMaxChunk(false, 4), 16u);
  EXPECT_EQ(passes::RecursiveMaxChunk(), 17u);
  const passes::RecursiveFit fit = passes::FitRecursiveGaussian(64, 32);
  EXPECT_LT(passes::RecursiveRoundingPsnr(fit, 64, 1080, false, 17),
            passes::RecursiveRoundingPsnr(fit, 64, 1080, false, 12));
  for (const auto working : {graph::PixelFormat::kRgba16F, graph::PixelFormat::kRgba32F}) {
    SCOPED_TRACE(graph::PixelFormatName(working));
    const Planned p = PlanImage(1920, 1080, working, RGFX_BORDER_CLAMP);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    const passes::StepKernel& h = p.prepared.steps[0];
    const passes::StepKernel& v = p.prepared.steps[1];
    ASSERT_TRUE(Recursive(v)) << v.details;
    const bool half = working == graph::PixelFormat::kRgba16F;
    EXPECT_EQ(v.spec.values[0], half ? 128u : 192u);  // 2 columns x 64 or 96 chunk slots
    EXPECT_EQ(v.spec.values[6], half ? 17u : 12u);    // pixels per chunk
    EXPECT_THAT(v.details, HasSubstr(half ? "chunks of 17 px, 64 per line"
                                          : "chunks of 12 px, 96 per line"));
    EXPECT_EQ(h.spec.values[6], 15u);
  }
}

// Another cap on the pixels per chunk, for measurements: every line still
// covered within the cap, on every axis, and the rounding statement
// following the longer backward runs.
TEST(LargeRadiusPlan, AnotherChunkCapSpreadsTheLinesWithinIt) {
  {
    const MaxChunk cap(24);
    EXPECT_EQ(passes::RecursiveMaxChunk(), 24u);
    EXPECT_EQ(passes::RecursiveMaxChunk(true, 16), 24u);
    EXPECT_EQ(passes::RecursiveMaxChunk(false, 8), 24u);
    // 1080-row RGBA32F columns: 45 chunks of 24 take 64 slots, so 17 px.
    BlurConfig config = Config(1920, 1080, 64, H100Caps());
    config.border = RGFX_BORDER_CLAMP;
    config.working = graph::PixelFormat::kRgba32F;
    const Planned p = Plan(config);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    EXPECT_THAT(p.prepared.steps[1].details, HasSubstr("chunks of 17 px, 64 per line"));
    for (const uint32_t most : {8u, 17u, 24u}) {
      const MaxChunk other(most);
      for (uint32_t n = 1; n <= 5000; n += (n < 100 ? 1 : 37)) {
        for (const uint32_t extend : {0u, 65u}) {
          const passes::RecursiveGeometry g = passes::ChooseRecursiveGeometry(
              n, 1080, true, extend, extend + 65, 8, 48 << 10, 1024, 32);
          if (g.lines_per_group == 0) continue;
          SCOPED_TRACE(absl::StrCat("cap ", most, " n ", n, " extend ", extend));
          const uint64_t domain = uint64_t{n} + 2 * extend;
          EXPECT_LE(g.chunk, most);
          EXPECT_GE(uint64_t{g.chunk} * g.chunks, domain);
          EXPECT_EQ(g.chunks, ((domain + most - 1) / most + 31) / 32 * 32);
        }
      }
    }
  }
  EXPECT_EQ(passes::RecursiveMaxChunk(), passes::kRecursiveChunkHalfColumns);
  EXPECT_EQ(passes::RecursiveMaxChunk(true, 16), passes::kRecursiveChunk);
  // Caps beyond what the shader is built for are held to its range.
  {
    const MaxChunk cap(1);
    EXPECT_EQ(passes::RecursiveMaxChunk(), passes::kRecursiveMinChunkCap);
  }
  {
    const MaxChunk cap(99);
    EXPECT_EQ(passes::RecursiveMaxChunk(), passes::kRecursiveMaxChunkCap);
  }
}

TEST(LargeRadiusPlan, RecursiveGeometryCoversEveryPixelWithinTheSharedMemory) {
  for (uint32_t subgroup : {8u, 32u, 64u}) {
    for (uint32_t shared : {16u << 10, 48u << 10, 64u << 10}) {
      for (uint32_t invocations : {256u, 1024u}) {
        for (uint32_t extend : {0u, 65u, 1025u}) {
          for (uint32_t margin : {0u, extend + 65u, extend + 1025u}) {
            for (bool columns : {false, true}) {
              for (uint32_t bytes : {8u, 16u}) {
                for (uint32_t n = 1; n <= 9000; n += (n < 40 ? 1 : 97)) {
                  SCOPED_TRACE(absl::StrCat("n ", n, " shared ", shared, " invocations ",
                                            invocations, " subgroup ", subgroup, " extend ", extend,
                                            " margin ", margin, columns ? " columns" : " rows",
                                            " bytes ", bytes));
                  const passes::RecursiveGeometry g = passes::ChooseRecursiveGeometry(
                      n, 1080, columns, extend, margin, bytes, shared, invocations, subgroup);
                  const uint64_t most_chunk = passes::RecursiveMaxChunk(columns, bytes);
                  const uint64_t chunks =
                      (uint64_t{n} + 2 * extend + most_chunk - 1) / most_chunk;
                  const uint64_t slots = (chunks + subgroup - 1) / subgroup * subgroup;
                  // The domain rounded up to 64 spread evenly.
                  const uint64_t domain = uint64_t{n} + 2 * extend;
                  const uint64_t rounded = (domain + 63) / 64 * 64;
                  // Where a cap of 17 does not divide the rounding, the
                  // exact length spread the same way.
                  uint64_t chunk = (rounded + slots - 1) / slots;
                  if (chunk > most_chunk) chunk = (domain + slots - 1) / slots;
                  // `lines` strips of `stored` pixels and their carries.
                  const auto strips = [&](uint64_t lines, uint64_t stored) {
                    return lines * ((stored + stored / chunk + 1) * bytes + 64 * (slots / subgroup));
                  };
                  if (g.lines_per_group == 0) {
                    EXPECT_TRUE(strips(1, n) > shared || slots > invocations);
                    continue;
                  }
                  // The full margins wherever the strips hold them and as
                  // many workgroups run at once with them as without, else
                  // one pixel at each end on the same terms where the line
                  // is not extended, else none; a capacity rounded up to 64
                  // where that costs nothing either.
                  const uint32_t l = g.lines_per_group;
                  const auto resident = [&](uint64_t capacity) {
                    return passes::RecursiveResidentWorkgroups(strips(l, capacity), g.threads,
                                                               bytes);
                  };
                  const uint64_t up = (uint64_t{n} + 63) / 64 * 64;
                  const uint64_t plain = strips(l, up) <= shared ? up : n;
                  const auto costless = [&](uint64_t stored, uint64_t capacity) {
                    return capacity >= stored && strips(l, capacity) <= shared &&
                           resident(capacity) >= resident(plain);
                  };
                  const auto either = [&](uint64_t m) {
                    const uint64_t stored = uint64_t{n} + 2 * m;
                    return costless(stored, (stored + 63) / 64 * 64) || costless(stored, stored);
                  };
                  const bool full = margin != 0 && either(margin);
                  const bool one = !full && extend == 0 && either(1);
                  EXPECT_EQ(g.margin, full ? margin : one ? 1u : 0u);
                  EXPECT_EQ(g.clamped_reads, one);
                  const uint64_t stored = uint64_t{n} + 2 * g.margin;
                  if (g.margin != 0) {
                    EXPECT_TRUE(costless(stored, g.capacity));
                    // Rounded up wherever that costs nothing.
                    if (costless(stored, (stored + 63) / 64 * 64)) {
                      EXPECT_EQ(g.capacity, (stored + 63) / 64 * 64);
                    }
                  } else {
                    EXPECT_EQ(g.capacity, plain);
                  }
                  EXPECT_EQ(g.chunks, slots);
                  // Every pixel of the extended line in a chunk, no chunk longer
                  // than the rounding bounds assume, spread evenly (no whole
                  // chunk left idle).
                  EXPECT_LE(g.chunk, most_chunk);
                  EXPECT_EQ(g.chunk, chunk);
                  EXPECT_GE(uint64_t{g.chunk} * slots, domain);
                  EXPECT_LT(uint64_t{g.chunk - 1} * slots, rounded);
                  EXPECT_EQ(g.threads, g.lines_per_group * g.chunks);
                  EXPECT_LE(g.threads, invocations);
                  EXPECT_LE(g.shared_bytes, shared);
                  EXPECT_LE(g.lines_per_group, columns ? 2u : 1u);
                  EXPECT_GE(g.capacity, stored);
                  EXPECT_LT(g.capacity, stored + passes::kFusedCapacityStep);
                }
              }
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(passes::ChooseRecursiveGeometry(1920, 1080, false, 0, 65, 8, 48 << 10, 1024, 0)
                .lines_per_group,
            0u);
  EXPECT_EQ(passes::ChooseRecursiveGeometry(1920, 1080, false, 0, 65, 8, 48 << 10, 1024, 24)
                .lines_per_group,
            0u);
}

// The occupancy model against what the H100 ran (see its comment).
TEST(LargeRadiusPlan, ResidentWorkgroupsAsMeasuredOnTheH100) {
  // RGBA16F rows of 128 invocations: 5 by registers, fewer once the strip
  // passes 20 KB.
  EXPECT_EQ(passes::RecursiveResidentWorkgroups(16 << 10, 128, 8), 5u);
  EXPECT_EQ(passes::RecursiveResidentWorkgroups(18 << 10, 128, 8), 5u);
  EXPECT_EQ(passes::RecursiveResidentWorkgroups(21 << 10, 128, 8), 4u);
  EXPECT_EQ(passes::RecursiveResidentWorkgroups(34 << 10, 128, 8), 2u);
  // RGBA32F rows of 1920 px: 3 of 33.0 KB (no margins), 2 of 34.1 KB
  // (margins of up to 31 px).
  EXPECT_EQ(passes::RecursiveResidentWorkgroups(33040, 128, 16), 3u);
  EXPECT_EQ(passes::RecursiveResidentWorkgroups(34128, 128, 16), 2u);
  // Columns of 192 invocations: 3 by registers in RGBA16F.
  EXPECT_EQ(passes::RecursiveResidentWorkgroups(28 << 10, 192, 8), 3u);
}

TEST(LargeRadiusPlan, FullHdOnAnH100FusesBothAxesWithoutTemporarySums) {
  const BoxesOnly boxes;
  for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    for (int radius : {16, 64, 256, 1024}) {
      BlurConfig config = Config(1920, 1080, radius, H100Caps());
      config.working = working;
      const Planned p = Plan(config);
      ASSERT_EQ(p.prepared.steps.size(), 2u);
      ASSERT_EQ(p.plan.steps.size(), 2u);
      // Only the intermediate image: no prefix-sum temporary.
      ASSERT_EQ(p.plan.temp_extents.size(), 1u);
      EXPECT_EQ(p.plan.steps[0].writes.size(), 1u);
      EXPECT_EQ(p.plan.steps[1].writes.size(), 1u);
      const passes::StepKernel& h = p.prepared.steps[0];
      const passes::StepKernel& v = p.prepared.steps[1];
      EXPECT_TRUE(Fused(h)) << h.details;
      EXPECT_TRUE(Fused(v)) << v.details;
      // threads, lines per workgroup, capacity (n rounded up to 64), segment,
      // columns, subgroup size.
      ASSERT_EQ(h.spec.values.size(), 6u);
      EXPECT_EQ(h.spec.values[5], 32u);
      EXPECT_EQ(h.spec.values[0], 256u);
      EXPECT_EQ(h.spec.values[1], 1u);  // a 1920-pixel row takes 30 KB
      EXPECT_EQ(h.spec.values[2], 1920u);
      EXPECT_EQ(h.spec.values[4], 0u);
      EXPECT_EQ(h.groups_x, 1080u);
      EXPECT_EQ(v.spec.values[1], 2u);  // two 1080-pixel columns: 34.6 KB
      EXPECT_EQ(v.spec.values[2], 1088u);
      EXPECT_EQ(v.spec.values[4], 1u);
      EXPECT_EQ(v.groups_x, 960u);
      EXPECT_THAT(p.prepared.accuracy.summary, HasSubstr("expected PSNR"));
      ASSERT_TRUE(p.prepared.accuracy.noise_psnr_db.has_value());
      EXPECT_GE(*p.prepared.accuracy.noise_psnr_db, 50.0) << radius;
    }
  }
}

TEST(LargeRadiusPlan, LinesThatDoNotFitTakeTheTwoDispatchPath) {
  const BoxesOnly boxes;
  // A tiny shared memory: neither axis fits; the sums temporary is back.
  gpu::DeviceCaps tiny = H100Caps();
  tiny.max_compute_shared_memory_bytes = 4 << 10;
  Planned p = Plan(Config(1920, 1080, 64, tiny));
  ASSERT_EQ(p.prepared.steps.size(), 2u);
  EXPECT_EQ(p.plan.temp_extents.size(), 2u);
  for (const passes::StepKernel& k : p.prepared.steps) {
    EXPECT_FALSE(Fused(k)) << k.details;
    EXPECT_THAT(k.details, HasSubstr("two dispatches"));
    EXPECT_EQ(k.shader, 0);
    EXPECT_EQ(k.spec.values.size(), 2u);
  }
  EXPECT_EQ(p.plan.steps[0].writes.size(), 2u);
  EXPECT_EQ(p.plan.steps[1].writes.size(), 2u);

  // Rows too long, columns short: horizontal falls back, vertical fuses.
  p = Plan(Config(8000, 300, 64, H100Caps()));
  ASSERT_EQ(p.prepared.steps.size(), 2u);
  EXPECT_FALSE(Fused(p.prepared.steps[0])) << p.prepared.steps[0].details;
  EXPECT_TRUE(Fused(p.prepared.steps[1])) << p.prepared.steps[1].details;
  ASSERT_EQ(p.plan.temp_extents.size(), 2u);
  EXPECT_EQ(p.plan.temp_extents[1].width, 2u * 8000);  // vec4 fp32 sums of RGBA16F
  EXPECT_EQ(p.plan.steps[0].writes.size(), 2u);
  EXPECT_EQ(p.plan.steps[1].writes.size(), 1u);

  // One axis: fused has no temporary, the fallback one.
  p = Plan(Config(300, 8000, 64, H100Caps(), "horizontal"));
  EXPECT_TRUE(Fused(p.prepared.steps.at(0)));
  EXPECT_TRUE(p.plan.temp_extents.empty());
  p = Plan(Config(300, 8000, 64, H100Caps(), "vertical"));
  EXPECT_FALSE(Fused(p.prepared.steps.at(0)));
  EXPECT_EQ(p.plan.temp_extents.size(), 1u);
  EXPECT_EQ(p.plan.steps.at(0).writes.size(), 2u);
}

TEST(LargeRadiusPlan, FusedGeometryCoversEveryPixelWithinTheSharedMemory) {
  for (uint32_t subgroup : {8u, 32u, 64u}) {
    for (uint32_t shared : {16u << 10, 32u << 10, 48u << 10, 64u << 10}) {
      for (uint32_t invocations : {128u, 256u, 1024u}) {
        for (uint32_t n = 1; n <= 5000; n += (n < 40 ? 1 : 37)) {
          for (uint32_t lines : {1u, 3u, 1080u}) {
            SCOPED_TRACE(absl::StrCat("n ", n, " lines ", lines, " shared ", shared,
                                      " invocations ", invocations, " subgroup ", subgroup));
            const FusedGeometry g =
                passes::ChooseFusedGeometry(n, lines, shared, invocations, subgroup);
            // The smallest workgroup's footprint: one line, one total per
            // subgroup, the per-line values and the box table.
            const uint32_t threads = std::min(256u, invocations);
            const uint64_t one_line = 16ull * (n + 1 + threads / subgroup + 3) + 64;
            if (g.lines_per_group == 0) {
              EXPECT_GT(one_line, shared);
              continue;
            }
            EXPECT_LE(one_line, shared);
            EXPECT_LE(g.shared_bytes, shared);
            EXPECT_LE(g.threads, invocations);
            EXPECT_EQ(g.subgroup_size, subgroup);
            EXPECT_EQ(g.threads % subgroup, 0u);
            EXPECT_EQ(g.threads & (g.threads - 1), 0u);
            EXPECT_EQ(g.lines_per_group & (g.lines_per_group - 1), 0u);
            EXPECT_LE(g.lines_per_group, 16u);
            EXPECT_EQ(g.segment % 2, 1u);
            EXPECT_GE(uint64_t(g.segment) * (g.threads / g.lines_per_group), g.capacity);
            // The capacity holds the line; rounded up to 64 unless only n fits.
            EXPECT_GE(g.capacity, n);
            EXPECT_TRUE(g.capacity % passes::kFusedCapacityStep == 0 || g.capacity == n);
            EXPECT_LT(g.capacity, n + passes::kFusedCapacityStep);
            // No more lines per workgroup than the image has (rounded up).
            EXPECT_LT(g.lines_per_group / 2, lines);
          }
        }
      }
    }
  }
}

// The scan shuffles within subgroups: a device without relative shuffles,
// or whose subgroups do not divide the workgroup, takes the two-dispatch
// path.
TEST(LargeRadiusPlan, NoSubgroupShufflesNoFusing) {
  const BoxesOnly boxes;
  EXPECT_EQ(passes::ChooseFusedGeometry(1920, 1080, 48 << 10, 1024, 0).lines_per_group, 0u);
  EXPECT_EQ(passes::ChooseFusedGeometry(1920, 1080, 48 << 10, 1024, 512).lines_per_group, 0u);
  EXPECT_EQ(passes::ChooseFusedGeometry(1920, 1080, 48 << 10, 1024, 24).lines_per_group, 0u);
  gpu::DeviceCaps caps = H100Caps();
  caps.subgroup_shuffle_relative = false;
  const Planned p = Plan(Config(1920, 1080, 64, caps));
  ASSERT_EQ(p.prepared.steps.size(), 2u);
  for (const passes::StepKernel& k : p.prepared.steps) EXPECT_FALSE(Fused(k)) << k.details;
  const Planned q = Plan(Config(1920, 1080, 64, H100Caps()));
  for (const passes::StepKernel& k : q.prepared.steps) {
    EXPECT_TRUE(Fused(k)) << k.details;
    ASSERT_EQ(k.spec.values.size(), 6u);
    EXPECT_EQ(k.spec.values[5], 32u);  // the shader's kSubgroupSize
  }
}

// Images whose lines round up to the same capacity plan the same kernels
// (the same pipelines), so a client sending many sizes does not make a
// pipeline per size.
TEST(LargeRadiusPlan, NearbySizesShareTheirPipelines) {
  {
    // The recursive path: lines whose chunks pad to the same number of
    // subgroups (and whose capacities, margins included, round alike).
    BlurConfig a = Config(1901, 1030, 64, H100Caps()), b = Config(1918, 1086, 64, H100Caps());
    a.border = b.border = RGFX_BORDER_CLAMP;
    const Planned pa = Plan(a), pb = Plan(b);
    ASSERT_EQ(pa.prepared.steps.size(), 2u);
    for (size_t axis = 0; axis < 2; ++axis) {
      EXPECT_TRUE(Recursive(pa.prepared.steps[axis]));
      EXPECT_EQ(pa.prepared.steps[axis].spec.values, pb.prepared.steps[axis].spec.values) << axis;
    }
  }
  const BoxesOnly boxes;
  const Planned a = Plan(Config(1901, 1030, 64, H100Caps()));
  const Planned b = Plan(Config(1920, 1088, 64, H100Caps()));
  ASSERT_EQ(a.prepared.steps.size(), 2u);
  ASSERT_EQ(b.prepared.steps.size(), 2u);
  for (size_t axis = 0; axis < 2; ++axis) {
    EXPECT_TRUE(Fused(a.prepared.steps[axis]));
    EXPECT_EQ(a.prepared.steps[axis].spec.values, b.prepared.steps[axis].spec.values) << axis;
  }
}

TEST(LargeRadiusPlan, StatedRoundingCountsTheFusedScan) {
  const passes::BoxStack stack = passes::ChooseBoxStack(64, 32);
  const FusedGeometry g = passes::ChooseFusedGeometry(1920, 1080, 48 << 10, 1024, 32);
  const double two_dispatch = passes::PrefixRoundingPsnr(stack, 64, 1920, true);
  const double fused = passes::PrefixRoundingPsnr(stack, 64, 1920, true,
                                                  passes::FusedScanRoundings(g));
  // 256 segments: 8 levels, plus 3.5 roundings (the mean, Kahan, where the
  // subgroup and cross-subgroup prefixes meet), against 1.5.
  EXPECT_NEAR(passes::FusedScanRoundings(g), 11.5, 1e-12);
  EXPECT_NEAR(two_dispatch - fused, 10 * std::log10(11.5 / 1.5), 1e-9);
  EXPECT_GT(fused, 100.0);  // far below the staircase's own error
}

// Σ m_k·(g_k − staircase_k)² for breakpoints `breaks`, each step's height
// the mean of g over its taps (m_0 = 1, else 2), computed directly.
double StaircaseError(const std::vector<double>& g, const std::vector<int>& breaks) {
  double error = 0;
  int start = 0;
  for (int b : breaks) {
    double sum = 0, count = 0;
    for (int k = start; k <= b; ++k) {
      sum += (k == 0 ? 1 : 2) * g[k];
      count += k == 0 ? 1 : 2;
    }
    for (int k = start; k <= b; ++k) error += (k == 0 ? 1 : 2) * std::pow(g[k] - sum / count, 2);
    start = b + 1;
  }
  return error;
}

// The breakpoints are refined past the equal-level start: no single
// breakpoint moved by one tap lowers the distance to the Gaussian, and at
// r = 64, sigma 32 the stated noise PSNR is above the equal-level stack's
// 74.5 dB.
TEST(BoxStackChoice, NoBreakpointMovedByOneTapFitsTheGaussianBetter) {
  for (int radius : {16, 40, 64, 256, 1024}) {
    for (double sigma : {radius / 2.0, radius / 6.0 + 0.5, 2.0 * radius}) {
      SCOPED_TRACE(absl::StrCat("radius ", radius, " sigma ", sigma));
      const passes::BoxStack stack = passes::ChooseBoxStack(radius, sigma);
      const std::vector<double> g = passes::GaussianWeights(radius, sigma);
      std::vector<int> breaks = stack.half_widths;
      ASSERT_EQ(breaks.back(), radius);
      const double error = StaircaseError(g, breaks);
      // The same staircase as the stack's coefficients give.
      const std::vector<double> k = stack.Kernel(radius);
      double from_stack = 0;
      for (int i = 0; i <= radius; ++i) from_stack += (i == 0 ? 1 : 2) * std::pow(g[i] - k[i], 2);
      EXPECT_NEAR(from_stack, error, 1e-9 * error + 1e-30);
      for (size_t i = 0; i + 1 < breaks.size(); ++i) {
        for (int d : {-1, 1}) {
          std::vector<int> moved = breaks;
          moved[i] += d;
          if (moved[i] < (i > 0 ? moved[i - 1] + 1 : 0) || moved[i] >= moved[i + 1]) continue;
          EXPECT_GE(StaircaseError(g, moved), error * (1 - 1e-9)) << "breakpoint " << i << " " << d;
        }
      }
    }
  }
  const passes::BoxStack s = passes::ChooseBoxStack(64, 32);
  EXPECT_GT(passes::KernelNoisePsnr(passes::GaussianWeights(64, 32), s.Kernel(64), true), 74.7);
}

}  // namespace
}  // namespace rgfx
