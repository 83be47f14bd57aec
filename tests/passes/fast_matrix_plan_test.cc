// The plan of gaussian_blur "fast" on a device with matrix units, without a
// GPU (lavapipe has none, so the matrix shader itself runs only on such a
// device: blur_variants_tests there compares it with the double-precision
// reference). Checked here: when the matrix path is chosen and when the
// line paths are, the workgroup geometry, and that the Toeplitz blocks the
// shader multiplies hold every weight, split into two fp16 terms whose sum
// keeps ~22 bits, in the right place.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <utility>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

#include "passes/blur_variants/blur_variant.h"
#include "tests/passes/variant_plan.h"
#include "passes/blur_variants/fast.h"
#include "passes/blur_variants/fast_fft.h"
#include "passes/gaussian_weights.h"
#include "passes/half_float.h"
#include "passes/shader_interface.h"

namespace rgfx {
namespace {

using graph::PixelFormat;
using passes::BlurConfig;
using passes::BlurPrepared;

gpu::DeviceCaps MatrixCaps() {
  gpu::DeviceCaps caps;  // an H100's limits
  caps.name = "test device (matrix units)";
  caps.max_compute_shared_memory_bytes = 48 << 10;
  caps.shader_float16 = true;
  caps.f16_matrix_product_16 = true;
  return caps;
}

// While alive, fast's RGBA32F axes never take the FFT, which takes long
// radii where it pays: for the tests of the line paths' plans.
struct WithoutFft {
  WithoutFft() { passes::SetFastFftPolicy(passes::FftPolicy{1 << 30, 16, false}); }
  ~WithoutFft() { passes::SetFastFftPolicy(std::nullopt); }
};

BlurConfig Config(int radius, PixelFormat working, gpu::DeviceCaps caps) {
  BlurConfig c;
  c.pass_name = "blur";
  c.radius = radius;
  c.sigma = radius / 2.0;
  c.border = RGFX_BORDER_CLAMP;
  c.axes = "both";
  c.extent = {1920, 1080};
  c.working = working;
  c.caps = caps;
  return c;
}

using Planned = plan_test::PlannedVariant;

Planned PlanFast(const BlurConfig& config) { return plan_test::PlanVariant("fast", config); }

// Parts of split taps at `radius` under the plan's policy.
int SplitParts(int radius) {
  const int most = 2 * passes::kFastSplitPolicy.part_max_radius + 1;
  return (2 * radius + most) / most;
}

TEST(FastMatrixPlan, BothAxesUseMatrixUnitsForRgba16F) {
  // r = 64: the streamed kernel in its measured shape (two subgroups of 32
  // per workgroup, each 4 lines along a segment of at most 24 tiles of 16
  // outputs, as even as the line allows, four tiles per step, 4 blocks
  // loaded ahead, the blocks in registers; one accumulator chain per tile
  // on both axes).
  const Planned p = PlanFast(Config(64, PixelFormat::kRgba16F, MatrixCaps()));
  ASSERT_EQ(p.prepared.steps.size(), 2u);
  for (const passes::StepKernel& k : p.prepared.steps) {
    EXPECT_THAT(k.details, testing::HasSubstr("matrix units, streamed"));
    ASSERT_EQ(k.spec.values.size(), 10u);
    EXPECT_EQ(k.spec.values[8], 0u);  // from J = 5 the temporary stays in lines
    EXPECT_EQ(k.spec.values[9], 1u);  // the blocks in registers
    EXPECT_EQ(k.spec.values[0], 64u);
    EXPECT_EQ(k.spec.values[1], 64u);
    EXPECT_EQ(k.spec.values[3], 2u);
    EXPECT_EQ(k.spec.values[4], 4u);
    EXPECT_EQ(k.spec.values[7], 1u);  // one accumulator chain per tile
    EXPECT_THAT(k.details, testing::HasSubstr("four tiles per step"));
    EXPECT_THAT(k.details, testing::Not(testing::HasSubstr("accumulator chains")));
  }
  const passes::StepKernel& h = p.prepared.steps[0];
  const passes::StepKernel& v = p.prepared.steps[1];
  EXPECT_EQ(h.spec.values[2], 0u);  // rows: pixels adjacent
  EXPECT_EQ(v.spec.values[2], 1u);  // columns: lines adjacent
  EXPECT_EQ(h.segment, 24u);        // 120 tiles in 5 segments
  EXPECT_EQ(h.groups_x, 5u);
  EXPECT_EQ(h.groups_y, 135u);      // 1080 / 8
  EXPECT_EQ(v.segment, 23u);        // 68 tiles in 3 segments
  // Columns number their line groups first (x), segments second.
  EXPECT_EQ(h.spec.values[5], 0u);
  EXPECT_EQ(v.spec.values[5], 1u);
  EXPECT_EQ(v.groups_x, 240u);      // 1920 / 8
  EXPECT_EQ(v.groups_y, 3u);
  // 4K: 24 tiles give 5,400 and 5,760 subgroups, more than the large-image
  // bound, but no shape of its own (they lost), and J = 9's has no
  // long_tiles: the same shapes, four tiles per step in segments of at
  // most 24.
  BlurConfig uhd = Config(64, PixelFormat::kRgba16F, MatrixCaps());
  uhd.extent = {3840, 2160};
  const Planned big = PlanFast(uhd);
  ASSERT_EQ(big.prepared.steps.size(), 2u);
  EXPECT_EQ(big.prepared.steps[0].segment, 24u);  // 240 tiles in 10 segments
  EXPECT_EQ(big.prepared.steps[0].groups_x, 10u);
  EXPECT_EQ(big.prepared.steps[1].segment, 23u);  // 135 tiles in 6 segments
  EXPECT_EQ(big.prepared.steps[1].groups_y, 6u);
  for (const passes::StepKernel& k : big.prepared.steps) {
    EXPECT_THAT(k.details, testing::HasSubstr("four tiles per step"));
    EXPECT_EQ(k.spec.values[4], 4u);  // blocks ahead
    EXPECT_EQ(k.spec.values[7], 1u);  // one chain: four tiles have registers to spare for none
  }
  ASSERT_EQ(p.plan.constants.size(), 2u);  // line-path weights, matrix blocks
  EXPECT_THAT(p.prepared.accuracy.summary, testing::HasSubstr("weights rounded to fp16"));
  EXPECT_TRUE(p.prepared.accuracy.exact);
}

// The streamed kernel's weights are the fp16 roundings alone: the plan
// states how far an axis can be off (Σ|w − fp16(w)| over the 2R + 1 taps),
// and for σ = R/2 that stays below 2.5e-4 of full scale (about one RGBA16F
// rounding of a value near 1, 2^-12; r = 38 comes closest, 2.46e-4), the
// claim the docs make, at every radius the stream takes (1-448). The
// panel kernel (where the image gives the stream too few subgroups) keeps
// two fp16 terms and says so.
TEST(FastMatrixPlan, StreamedAccuracyStatesTheHalfWeightsError) {
  for (int radius = 1; radius <= passes::kFastStreamMaxRadiusF16; ++radius) {
    SCOPED_TRACE(radius);
    const std::vector<double> w = passes::GaussianWeights(radius, radius / 2.0);
    double bound = 0;
    for (int t = -radius; t <= radius; ++t) {
      const double exact = w[std::abs(t)];
      bound += std::abs(passes::HalfToDouble(passes::DoubleToHalf(exact)) - exact);
    }
    EXPECT_LT(bound, 2.5e-4);
    BlurConfig c = Config(radius, PixelFormat::kRgba16F, MatrixCaps());
    c.axes = "horizontal";
    const Planned p = PlanFast(c);
    ASSERT_THAT(p.prepared.steps[0].details, testing::HasSubstr("streamed"));
    EXPECT_THAT(p.prepared.accuracy.summary,
                testing::HasSubstr(absl::StrFormat("at most %.1e of full scale", bound)));
  }
  BlurConfig small = Config(113, PixelFormat::kRgba16F, MatrixCaps());
  small.extent = {512, 512};
  const Planned panel = PlanFast(small);
  ASSERT_THAT(panel.prepared.steps[0].details, testing::HasSubstr("panel"));
  EXPECT_THAT(panel.prepared.accuracy.summary, testing::HasSubstr("two fp16 terms"));
}

// Up to r = 112 the streamed kernel in the shape measured for its radius
// band (passes::FastStreamShapeFor): segments cover every output of a line
// with as little spare as the segment count allows, at most the shape's
// tiles; the shape's subgroups per workgroup (4 lines each), queue depth
// (even where two tiles per step: that kernel consumes blocks in pairs)
// and kernel; its shared memory (per subgroup a ring of J blocks and a
// scratch block of 16 rows of 48 B, one more of each for two tiles) fits
// 48 KB at every radius. Shorter segments (down to 8 tiles) where that
// gives too few subgroups, the panel kernel where even that does (2
// subgroups x 8 tiles while its panel fits), at any radius.
TEST(FastMatrixPlan, StreamedShapesUpToRadius112AndThePanelForSmallImages) {
  for (int radius = 0; radius <= 112; ++radius) {
    for (bool columns : {false, true}) {
      const passes::FastStreamShape shape = passes::FastStreamShapeFor(radius, false, columns);
      const uint32_t blocks = 1 + (2 * radius + 15) / 16;
      SCOPED_TRACE(testing::Message() << "r=" << radius << (columns ? " columns" : " rows"));
      EXPECT_GE(shape.max_tiles, 8u);
      EXPECT_TRUE(shape.ahead == 2 || shape.ahead == 4);
      EXPECT_TRUE(shape.warps == 1 || shape.warps == 2 || shape.warps == 4);
      EXPECT_TRUE(shape.tiles_per_step == 1 || shape.tiles_per_step == 2 || shape.tiles_per_step == 4);
      EXPECT_EQ(shape.ahead % shape.tiles_per_step, 0u);
      EXPECT_LE(shape.warps * (blocks + 2 * shape.tiles_per_step - 1) * 768, 48u << 10);
      // Longer segments on large images only where J >= 12 (measured there);
      // large images take the same shapes (their own lost at J = 5-9).
      EXPECT_EQ(shape.long_tiles, blocks >= 12 ? 48u : 0u);
      // Two subgroups a workgroup at J = 5-11 only, where they measured
      // faster at 1080p (from J = 9 with the blocks in registers), and on
      // 2048² and 4K at J = 5-9.
      EXPECT_EQ(shape.warps, blocks >= 5 && blocks <= 11 ? 2u : 1u);
      // The blocks in registers: columns up to J = 11, rows from J = 5 to 11.
      EXPECT_EQ(shape.register_ring, blocks <= 11 && (columns || blocks >= 5) ? 1u : 0u);
      // One accumulator chain per tile in RGBA16F: two had won in column
      // passes at J = 6 and 9 with the blocks in shared memory, and lost
      // to four tiles per step with the blocks in registers.
      EXPECT_EQ(shape.column_chains, 1u);
      // RGBA32F: two in its column pass at J <= 3 only (r = 16: 34.1 against
      // 34.8 µs for the best shape with one).
      EXPECT_EQ(passes::FastStreamShapeFor(radius, true, columns).column_chains,
                columns && blocks <= 3 ? 2u : 1u);
    }
    // Rows and columns were measured apart: they differ where the scan
    // found a shape better by about a microsecond or more for one axis.
    const passes::FastStreamShape rows = passes::FastStreamShapeFor(radius);
    const passes::FastStreamShape cols = passes::FastStreamShapeFor(radius, false, true);
    const uint32_t blocks = 1 + (2 * radius + 15) / 16;
    const bool differ = rows.max_tiles != cols.max_tiles || rows.ahead != cols.ahead ||
                        rows.tiles_per_step != cols.tiles_per_step || rows.warps != cols.warps ||
                        rows.column_chains != cols.column_chains;
    EXPECT_EQ(differ, blocks <= 2 || (blocks >= 4 && blocks <= 8) || blocks >= 10)
        << "r=" << radius;
  }
  for (int radius : {0, 1, 16, 17, 40, 48, 64, 80, 96, 97, 100, 112}) {
    for (uint32_t n : {1u, 15u, 16u, 17u, 255u, 256u, 257u, 513u, 1080u, 4099u}) {
      SCOPED_TRACE(testing::Message() << "r=" << radius << " n=" << n);
      BlurConfig c = Config(radius, PixelFormat::kRgba16F, MatrixCaps());
      c.axes = "horizontal";
      c.extent = {n, 4096};  // 1024 groups of 4 lines: segments need not shrink
      const Planned p = PlanFast(c);
      ASSERT_EQ(p.prepared.steps.size(), 1u);
      const passes::StepKernel& k = p.prepared.steps[0];
      ASSERT_THAT(k.details, testing::HasSubstr("matrix units, streamed"));
      // Rows one pixel long have their lines adjacent in memory, as a column
      // pass's: they take the column shape. Large or not (1,024 line groups
      // here give more than 2,800 subgroups from 3 segments), the same.
      const bool adjacent = n == 1;
      const passes::FastStreamShape shape = passes::FastStreamShapeFor(radius, false, adjacent);
      const uint32_t tiles16 = (n + 15) / 16;
      const uint32_t blocks = 1 + (2 * radius + 15) / 16;
      ASSERT_EQ(k.spec.values.size(), 10u);
      EXPECT_EQ(k.spec.values[9], shape.register_ring);
      EXPECT_EQ(k.spec.values[0], 32 * shape.warps);
      // A row pass numbers segments first, unless its rows are one pixel
      // long (lines adjacent, as a column pass's).
      EXPECT_EQ(k.spec.values[5], adjacent ? 1u : 0u);
      EXPECT_EQ(k.spec.values[7], adjacent ? shape.column_chains : 1u);
      const uint32_t segments = adjacent ? k.groups_y : k.groups_x;
      const uint32_t line_groups = adjacent ? k.groups_x : k.groups_y;
      EXPECT_EQ(k.spec.values[3], shape.warps);
      EXPECT_EQ(k.spec.values[4], shape.ahead);
      EXPECT_GE(k.segment, 1u);
      EXPECT_LE(k.segment, std::max(shape.max_tiles, shape.long_tiles));
      // Every output has a segment; removing one segment would leave some
      // without, and no shorter segment with the same count would do.
      EXPECT_GE(segments * k.segment, tiles16);
      EXPECT_LT((segments - 1) * k.segment, tiles16);
      // As many segments as max_tiles needs; but where that gives more than
      // 2,800 subgroups, no more than the larger of 2,800 / 1,024 = 2 and
      // the fewest that long_tiles allows.
      const uint32_t by_max = (tiles16 + shape.max_tiles - 1) / shape.max_tiles;
      uint32_t expected = by_max;
      if (shape.long_tiles > 0) {
        const uint32_t by_long = (tiles16 + shape.long_tiles - 1) / shape.long_tiles;
        expected = std::min(by_max, std::max({by_long, 2800u / 1024u, 1u}));
      }
      EXPECT_EQ(segments, expected);
      EXPECT_EQ(line_groups, 1024u / shape.warps);
      const uint32_t per_step = shape.tiles_per_step;
      EXPECT_THAT(k.details, testing::HasSubstr(per_step == 1   ? "one tile per step"
                                                : per_step == 2 ? "two tiles per step"
                                                                : "four tiles per step"));
      EXPECT_THAT(k.details, testing::HasSubstr(absl::StrCat(
                                 "ring of ", blocks + per_step - 1, " blocks")));
      // Shared memory: the ring (or, blocks in registers, N staging
      // blocks) and N scratch blocks.
      const uint32_t slots = shape.register_ring == 1 ? per_step : blocks + per_step - 1;
      EXPECT_THAT(k.details, testing::HasSubstr(absl::StrCat(
                                 shape.warps * (slots + per_step) * 768, " bytes")));
      EXPECT_THAT(k.details, testing::HasSubstr(absl::StrCat(4 * shape.warps, " lines per workgroup")));
    }
  }
  // Fewer lines: segments shrink to 8 tiles for 1024 subgroups, then the
  // panel takes over.
  BlurConfig c = Config(64, PixelFormat::kRgba16F, MatrixCaps());
  c.axes = "horizontal";
  c.extent = {1100, 601};  // 69 tiles, 151 groups of 4 lines
  Planned small = PlanFast(c);
  EXPECT_THAT(small.prepared.steps[0].details, testing::HasSubstr("streamed"));
  EXPECT_EQ(small.prepared.steps[0].segment, 10u);  // 7 segments: 1057 subgroups
  EXPECT_EQ(small.prepared.steps[0].groups_x, 7u);
  // From J = 10 (r = 65) a segment's halo costs more than the latency 256
  // subgroups more would hide: 768 suffice, 6 segments of 12 tiles (906
  // subgroups) at r = 80, unless a benchmark sets the minimum.
  BlurConfig wide = Config(80, PixelFormat::kRgba16F, MatrixCaps());
  wide.axes = "horizontal";
  wide.extent = {1100, 601};
  EXPECT_EQ(PlanFast(wide).prepared.steps[0].segment, 12u);
  {
    struct Restore {
      ~Restore() { passes::SetFastStreamMinSubgroups(std::nullopt); }
    } restore;
    passes::SetFastStreamMinSubgroups(1024);
    EXPECT_EQ(PlanFast(wide).prepared.steps[0].segment, 10u);
    EXPECT_EQ(PlanFast(c).prepared.steps[0].segment, 10u);
    passes::SetFastStreamMinSubgroups(512);  // 4 segments of 18 tiles (604)
    EXPECT_EQ(PlanFast(c).prepared.steps[0].segment, 18u);
  }
  EXPECT_EQ(PlanFast(c).prepared.steps[0].segment, 10u);
  // A column pass numbers its line groups in x: more than the device's
  // x count allows and the stream gives way.
  BlurConfig columns = Config(64, PixelFormat::kRgba16F, MatrixCaps());
  columns.axes = "vertical";
  EXPECT_THAT(PlanFast(columns).prepared.steps[0].details, testing::HasSubstr("streamed"));
  columns.caps.max_workgroup_count[0] = 239;  // 1920 columns: 240 groups of 8
  EXPECT_THAT(PlanFast(columns).prepared.steps[0].details,
              testing::Not(testing::HasSubstr("streamed")));
  c.extent = {512, 512};  // 32 tiles, 128 groups: at most 4 segments
  small = PlanFast(c);
  EXPECT_THAT(small.prepared.steps[0].details, testing::HasSubstr("matrix units"));
  EXPECT_THAT(small.prepared.steps[0].details, testing::Not(testing::HasSubstr("streamed")));
  // Beyond r = 112 too, where the image gives too few subgroups.
  for (int radius : {113, 150, 300}) {
    BlurConfig small_image = Config(radius, PixelFormat::kRgba16F, MatrixCaps());
    small_image.extent = {512, 512};
    const Planned p = PlanFast(small_image);
    for (const passes::StepKernel& k : p.prepared.steps) {
      EXPECT_THAT(k.details, testing::HasSubstr("matrix units"));
      EXPECT_THAT(k.details, testing::Not(testing::HasSubstr("streamed")));
      ASSERT_EQ(k.spec.values.size(), 6u);
      EXPECT_EQ(k.spec.values[4], 8u);  // tiles per subgroup
    }
  }
  // r = 150, 512²: the panel's 2 subgroups × 8 tiles.
  BlurConfig panel150 = Config(150, PixelFormat::kRgba16F, MatrixCaps());
  panel150.extent = {512, 512};
  const Planned p = PlanFast(panel150);
  EXPECT_EQ(p.prepared.steps[0].spec.values[3], 2u);
  EXPECT_EQ(p.prepared.steps[0].groups_x, 4u);   // 512 / 128
  EXPECT_EQ(p.prepared.steps[0].groups_y, 64u);  // 512 / 8
}

// RGBA16F streams beyond r = 112 too, up to 448 (J = 57), in the shapes a
// scan on the H200 chose per band (fast.cc's RowShapeBeyond112): one
// subgroup a workgroup, blocks loaded ahead one step's worth, long
// segments on large images; two tiles a step up to J = 49, four beyond;
// the ring and scratch fit 48 KB (exactly at J = 57). Beyond 448 the line
// paths: the panel does not fit either.
TEST(FastMatrixPlan, Rgba16FStreamsBeyondRadius112UpTo448) {
  // The kernel's shapes up to its limit (the bench can run them there); the
  // plan streams in one pass below kFastSplitPolicy.from_radius.
  for (int radius = 113; radius <= passes::kFastStreamMaxRadiusF16; ++radius) {
    const uint32_t blocks = 1 + (2 * radius + 15) / 16;
    for (bool columns : {false, true}) {
      SCOPED_TRACE(testing::Message() << "r=" << radius << (columns ? " columns" : " rows"));
      const passes::FastStreamShape shape = passes::FastStreamShapeFor(radius, false, columns);
      EXPECT_EQ(shape.warps, 1u);
      EXPECT_EQ(shape.ahead, shape.tiles_per_step);
      EXPECT_EQ(shape.tiles_per_step, blocks <= 49 ? 2u : 4u);
      EXPECT_EQ(shape.long_tiles, 48u);
      EXPECT_EQ(shape.register_ring, 0u);
      EXPECT_EQ(shape.column_chains, 1u);
      EXPECT_LE((blocks + 2 * shape.tiles_per_step - 1) * 768, 48u << 10);
    }
    const passes::FastStreamShape rows = passes::FastStreamShapeFor(radius);
    const passes::FastStreamShape cols = passes::FastStreamShapeFor(radius, false, true);
    EXPECT_EQ(rows.max_tiles != cols.max_tiles, (blocks >= 22 && blocks <= 29) ||
                                                    (blocks >= 42 && blocks <= 49))
        << "r=" << radius;
  }
  for (int radius : {113, 128, 150, 256, 300, 383}) {
    SCOPED_TRACE(radius);
    const Planned p = PlanFast(Config(radius, PixelFormat::kRgba16F, MatrixCaps()));
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    for (const passes::StepKernel& k : p.prepared.steps) {
      EXPECT_THAT(k.details, testing::HasSubstr("matrix units, streamed"));
      ASSERT_EQ(k.spec.values.size(), 10u);
      EXPECT_EQ(k.spec.values[1], static_cast<uint32_t>(radius));
    }
  }
  // From there the taps split (below).
  const int from = passes::kFastSplitPolicy.from_radius;
  ASSERT_LE(from, passes::kFastStreamMaxRadiusF16 + 1);
  const Planned beyond = PlanFast(Config(from, PixelFormat::kRgba16F, MatrixCaps()));
  for (const passes::StepKernel& k : beyond.prepared.steps) {
    EXPECT_THAT(k.details,
                testing::HasSubstr(absl::StrCat("taps in ", SplitParts(from), " parts")));
  }
}

// The parts of split taps: ⌈(2R + 1) / (2P + 1)⌉ of them, contiguous from
// −R, each within its half width and all of one width; together every tap
// once, with its weight, and nothing beyond ±R.
TEST(FastSplitTaps, PartsHoldEveryTapOnce) {
  for (int radius : {3, 40, 449, 512, 777, 1024, 4000}) {
    for (int most : {1, 16, 64, 256, 448}) {
      SCOPED_TRACE(testing::Message() << "r=" << radius << " part radius " << most);
      const std::vector<double> w = passes::GaussianWeights(radius, radius / 2.0);
      const std::vector<passes::FastTapPart> parts = passes::SplitFastTaps(w, most);
      const int taps = 2 * radius + 1;
      ASSERT_EQ(int(parts.size()), (taps + 2 * most) / (2 * most + 1));
      const int half = int(parts[0].taps.size() / 2);
      EXPECT_LE(half, most);
      std::vector<double> sum(taps + 4 * half + 2, 0.0);  // offsets −R − 2h − 1 ..
      const int origin = radius + 2 * half + 1;
      int covered_to = -radius;
      for (const passes::FastTapPart& p : parts) {
        ASSERT_EQ(p.taps.size(), size_t(2 * half + 1));
        EXPECT_EQ(p.shift - half, covered_to);  // contiguous, in order
        int last = covered_to - 1;
        for (int e = -half; e <= half; ++e) {
          const double t = p.taps[e + half];
          if (t != 0) last = p.shift + e;
          sum.at(p.shift + e + origin) += t;
        }
        covered_to = last + 1;
      }
      EXPECT_EQ(covered_to, radius + 1);
      for (int d = -radius - 2 * half - 1; d <= radius + 2 * half; ++d) {
        const double want = std::abs(d) <= radius ? w[std::abs(d)] : 0.0;
        ASSERT_EQ(sum[d + origin], want) << "offset " << d;
      }
    }
  }
}

// The blocks and shifts the split kernel multiplies, evaluated on the CPU
// as the shader indexes them (Y_s = Σ_j T_j X_{s+j}, X_k[b] = pixel
// first + shift − h + 16k + b through the border, tile s row a = output
// first + 16s + a), summed over the parts: with hi + lo (~22 bits) equal
// to the direct blur within 1e-6, with hi alone (what the kernel reads)
// within the fp16 weights' bound. A block or shift off by one is off by a
// whole tap's weight (> 1e-4 here).
TEST(FastSplitTaps, BlocksAndShiftsReproduceTheBlur) {
  const int n = 1130;
  std::vector<double> x(n);
  uint32_t state = 12345;
  for (double& v : x) {
    state = state * 1664525u + 1013904223u;
    v = (state >> 8) / double(1 << 24);
  }
  const auto at = [&](int i) { return x[std::clamp(i, 0, n - 1)]; };
  for (auto [radius, most] : {std::pair{449, 256}, std::pair{1024, 256}, std::pair{700, 100}}) {
    SCOPED_TRACE(testing::Message() << "r=" << radius << " part radius " << most);
    const std::vector<double> w = passes::GaussianWeights(radius, radius / 2.0);
    const std::vector<passes::FastTapPart> parts = passes::SplitFastTaps(w, most);
    std::vector<double> exact(n, 0.0), split_full(n, 0.0), split_hi(n, 0.0);
    for (int i = 0; i < n; ++i) {
      for (int d = -radius; d <= radius; ++d) exact[i] += w[std::abs(d)] * at(i + d);
    }
    for (const passes::FastTapPart& p : parts) {
      const int half = int(p.taps.size() / 2);
      const std::vector<uint16_t> blocks = passes::FastMatrixTapBlocks(p.taps);
      const int J = 1 + (2 * half + 15) / 16;
      ASSERT_EQ(blocks.size(), size_t(J) * 512);
      for (int s = 0; s * 16 < n; ++s) {
        for (int a = 0; a < 16 && 16 * s + a < n; ++a) {
          for (int j = 0; j < J; ++j) {
            for (int b = 0; b < 16; ++b) {
              const double hi = passes::HalfToDouble(blocks[j * 512 + a * 16 + b]);
              const double lo = passes::HalfToDouble(blocks[j * 512 + 256 + a * 16 + b]);
              const double v = at(p.shift - half + 16 * (s + j) + b);
              split_full[16 * s + a] += (hi + lo) * v;
              split_hi[16 * s + a] += hi * v;
            }
          }
        }
      }
    }
    double half_bound = 0;
    for (int k = 0; k <= radius; ++k) {
      const double rounded = passes::HalfToDouble(passes::DoubleToHalf(w[k]));
      half_bound += (k == 0 ? 1 : 2) * std::abs(rounded - w[k]);
    }
    for (int i = 0; i < n; ++i) {
      ASSERT_NEAR(split_full[i], exact[i], 1e-6) << "output " << i;
      ASSERT_NEAR(split_hi[i], exact[i], half_bound) << "output " << i;
    }
  }
}

// RGBA16F from r = 449 splits on both axes: one pass per axis still (the
// parts are dispatches inside it), each with the part's half width as its
// radius and one shift per part, one weight blob per part after the two the
// plan always has, and an fp32 temporary (2W x H RGBA16F) both steps write;
// the temporary between the passes in tiles (each part's column dispatch
// reads it), in lines again under the benchmark's bound of 4 blocks.
// RGBA32F keeps its line paths there; SetFastSplitTaps moves the bounds.
TEST(FastMatrixPlan, Rgba16FSplitsTapsFromItsPolicysRadius) {
  // With parts of at most 321 taps: 384 -> 3 parts, 449 -> 3, 481 -> 3
  // (963 taps), 482 -> 4, 1024 -> 7.
  ASSERT_EQ(passes::kFastSplitPolicy.part_max_radius, 160);
  for (auto [radius, parts] : {std::pair{384, 3}, std::pair{449, 3}, std::pair{481, 3},
                               std::pair{482, 4}, std::pair{1024, 7}}) {
    SCOPED_TRACE(radius);
    ASSERT_EQ(SplitParts(radius), parts);
    const Planned p = PlanFast(Config(radius, PixelFormat::kRgba16F, MatrixCaps()));
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    ASSERT_EQ(p.plan.constants.size(), size_t(2 + parts));
    ASSERT_EQ(p.plan.temp_extents.size(), 2u);
    EXPECT_EQ(p.plan.temp_extents[1].width, 2 * 1920u);
    EXPECT_EQ(p.plan.temp_extents[1].height, 1080u);
    // The temporary between the passes in tiles of 4 x 16 (padded: 1088
    // rows), two tiles a step storing them (not the wide stores).
    EXPECT_EQ(p.plan.temp_extents[0].width, 1920u);
    EXPECT_EQ(p.plan.temp_extents[0].height, 1088u);
    EXPECT_EQ(p.prepared.steps[0].spec.values.at(8), 1u);
    EXPECT_EQ(p.prepared.steps[1].spec.values.at(8), 1u);
    const std::vector<passes::FastTapPart> split = passes::SplitFastTaps(
        passes::GaussianWeights(radius, radius / 2.0), passes::kFastSplitPolicy.part_max_radius);
    for (size_t i = 0; i < 2; ++i) {
      const passes::StepKernel& k = p.prepared.steps[i];
      EXPECT_THAT(k.details, testing::HasSubstr(absl::StrCat("taps in ", parts, " parts of ",
                                                             split[0].taps.size())));
      EXPECT_EQ(k.spec.values[1], uint32_t(split[0].taps.size() / 2));
      ASSERT_EQ(k.tap_shifts.size(), size_t(parts));
      for (int q = 0; q < parts; ++q) EXPECT_EQ(k.tap_shifts[q], split[q].shift);
      EXPECT_EQ(k.constants, 2);
      ASSERT_EQ(p.plan.steps[i].writes.size(), 2u);
      EXPECT_EQ(p.plan.steps[i].writes[1], graph::StepResource::Temp(1));
      // The parts' own shape (fast.cc's kSplitPartShape).
      EXPECT_THAT(k.details, testing::HasSubstr("two tiles per step"));
      EXPECT_LE(k.segment, 16u);
    }
  }
  // Large images keep 16-tile segments (no long ones) for the parts.
  BlurConfig large = Config(1024, PixelFormat::kRgba16F, MatrixCaps());
  large.extent = {3840, 2160};
  for (const passes::StepKernel& k : PlanFast(large).prepared.steps) {
    EXPECT_EQ(k.tap_shifts.size(), 7u);
    EXPECT_LE(k.segment, 16u);
  }
  const Planned f32 = PlanFast(Config(512, PixelFormat::kRgba32F, MatrixCaps()));
  for (const passes::StepKernel& k : f32.prepared.steps) EXPECT_TRUE(k.tap_shifts.empty());
  passes::SetFastTiledTempMaxBlocks(4);
  const Planned in_lines = PlanFast(Config(512, PixelFormat::kRgba16F, MatrixCaps()));
  passes::SetFastTiledTempMaxBlocks(std::nullopt);
  EXPECT_EQ(in_lines.plan.temp_extents[0], (graph::Extent{1920, 1080}));
  for (const passes::StepKernel& k : in_lines.prepared.steps) {
    EXPECT_EQ(k.tap_shifts.size(), 4u);
    EXPECT_EQ(k.spec.values.at(8), 0u);
  }

  passes::SetFastSplitTaps(passes::FastSplitPolicy{300, 100});
  const Planned moved = PlanFast(Config(300, PixelFormat::kRgba16F, MatrixCaps()));
  const Planned below = PlanFast(Config(299, PixelFormat::kRgba16F, MatrixCaps()));
  passes::SetFastSplitTaps(std::nullopt);
  for (const passes::StepKernel& k : moved.prepared.steps) {
    EXPECT_THAT(k.details, testing::HasSubstr("taps in 3 parts of 201"));
  }
  for (const passes::StepKernel& k : below.prepared.steps) EXPECT_TRUE(k.tap_shifts.empty());
}

// Where a pass's subgroups would overflow what the multiprocessors run at
// once (fast.cc's StreamOneWave: 132 x 8 = 1,056 subgroups of 12,288 B at
// r = 96 on an H100) by less than a segment's worth, the pass takes one
// segment fewer: 1920x640 at r = 96, rows 160 x 7 = 1,120 -> 6 segments of
// 20 tiles; not at 1920x600 (1,050 fit). Not where the pass already fits
// (1920x1080 RGBA16F), where the device does not say how many
// multiprocessors it has, or where so little shared memory is used that
// registers decide (r = 16; rows at r = 32 and 56, whose blocks wait in
// registers two tiles a step: 2,124 subgroups at r = 32 and 1920x1416,
// 1,625 at r = 56 and 1920x1300, which their shared memory of old cut by a
// segment). The four-tile shapes with the blocks in registers (r = 40-88)
// count what their registers allow (fast.cc's StreamRegisterBound): 16 a
// multiprocessor at r = 40 (2,112, which 1,860 at 2480x1080 fit), 12 at
// r = 64 (1,584): 1920x1200 fits in rows (1,500) but not in columns (480
// line groups x 4 segments = 1,920), which take 3 segments (1,440, 400
// outputs); 2560x1440 keeps 4 column segments (3 would still be 1,920);
// at r = 48, 14 a multiprocessor.
TEST(FastMatrixPlan, OneSegmentFewerWhereThatMakesOneWave) {
  gpu::DeviceCaps h100 = MatrixCaps();
  h100.multiprocessors = 132;
  const auto outputs = [](int radius, uint32_t w, uint32_t h, const gpu::DeviceCaps& caps,
                          PixelFormat working = PixelFormat::kRgba16F) {
    BlurConfig c = Config(radius, working, caps);
    c.extent = {w, h};
    c.min_psnr_db = working == PixelFormat::kRgba32F ? 50 : 0;  // RGBA32F streams when allowed
    const Planned p = PlanFast(c);
    std::vector<std::string> along;
    for (const passes::StepKernel& k : p.prepared.steps) {
      const size_t at = k.details.find("along ");
      along.push_back(at == std::string::npos ? k.details : k.details.substr(at, 16));
    }
    return along;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(outputs(96, 1920, 640, h100)[0], "along 320 output");
  EXPECT_EQ(outputs(96, 1920, 640, MatrixCaps())[0], "along 288 output");
  EXPECT_EQ(outputs(96, 1920, 600, h100), outputs(96, 1920, 600, MatrixCaps()));
  EXPECT_EQ(outputs(64, 1920, 1200, h100), (V{"along 384 output", "along 400 output"}));
  EXPECT_EQ(outputs(64, 1920, 1200, MatrixCaps()), (V{"along 384 output", "along 304 output"}));
  EXPECT_EQ(outputs(64, 2560, 1440, h100), outputs(64, 2560, 1440, MatrixCaps()));
  EXPECT_EQ(outputs(64, 2560, 1440, h100)[1], "along 368 output");
  // r = 48 (J = 7): 14 a multiprocessor (1,848). 1920x1600's rows, 400 line
  // groups x 5 segments (2,000), would fit 16 but not 14: 4 segments.
  EXPECT_EQ(outputs(48, 1920, 1600, h100)[0], "along 480 output");
  EXPECT_EQ(outputs(48, 1920, 1600, MatrixCaps())[0], "along 384 output");
  EXPECT_EQ(outputs(64, 1920, 1080, h100), (V{"along 384 output", "along 368 output"}));
  EXPECT_EQ(outputs(64, 1920, 1080, h100), outputs(64, 1920, 1080, MatrixCaps()));
  EXPECT_EQ(outputs(40, 2480, 1080, h100), outputs(40, 2480, 1080, MatrixCaps()));
  EXPECT_EQ(outputs(32, 1920, 1416, h100), outputs(32, 1920, 1416, MatrixCaps()));
  EXPECT_EQ(outputs(16, 1920, 1200, h100), outputs(16, 1920, 1200, MatrixCaps()));
  // RGBA32F where allowed, 1080p r = 64: its per-axis shapes (16 tiles,
  // 2,160 and 2,400 subgroups against a wave of 1,320) are two waves either
  // way, so the rule leaves them (the scan measured them so).
  EXPECT_EQ(outputs(64, 1920, 1080, h100, PixelFormat::kRgba32F),
            (V{"along 240 output", "along 224 output"}));
  EXPECT_EQ(outputs(64, 1920, 1080, h100, PixelFormat::kRgba32F),
            outputs(64, 1920, 1080, MatrixCaps(), PixelFormat::kRgba32F));
  EXPECT_EQ(outputs(56, 1920, 1300, h100)[0], outputs(56, 1920, 1300, MatrixCaps())[0]);
}

// The benchmarks' way to time shapes against each other: a shape given as
// text, checked field by field; while set it replaces the table in every
// plan (where it fits the device), and clearing it restores the table.
TEST(FastMatrixPlan, StreamShapeOverrideForBenchmarks) {
  auto shape = passes::ParseFastStreamShape("20:4:2:2");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->max_tiles, 20u);
  EXPECT_EQ(shape->ahead, 4u);
  EXPECT_EQ(shape->tiles_per_step, 2u);
  EXPECT_EQ(shape->warps, 2u);
  EXPECT_EQ(passes::ParseFastStreamShape("20:4:1:2")->tiles_per_step, 1u);
  EXPECT_EQ(passes::ParseFastStreamShape("20:4:4:2")->tiles_per_step, 4u);
  EXPECT_EQ(shape->column_chains, 1u);
  EXPECT_EQ(passes::ParseFastStreamShape("20:4:2:2:2")->column_chains, 2u);
  EXPECT_EQ(shape->register_ring, 0u);
  EXPECT_EQ(passes::ParseFastStreamShape("20:4:2:2:1:1")->register_ring, 1u);
  EXPECT_EQ(passes::ParseFastStreamShape("20:4:2:2:2:0")->register_ring, 0u);
  for (const auto& [text, names] : std::vector<std::pair<std::string, std::string>>{
           {"20:4:2", "max_tiles:ahead:tiles_per_step:warps"},
           {"0:4:2:1", "max_tiles"},
           {"20:x:2:1", "ahead"},
           {"20:4:3:1", "tiles_per_step"},
           {"20:3:2:1", "multiple"},
           {"20:2:4:1", "multiple"},
           {"20:4:2:65", "warps"},
           {"20:4:2:1:3", "column_chains must be 1 or 2"},
           {"20:4:2:1:2:2", "register_ring must be 0 or 1"},
           {"20:4:2:1:2:1:1", "max_tiles:ahead:tiles_per_step:warps[:column_chains"}}) {
    const auto bad = passes::ParseFastStreamShape(text);
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_THAT(bad.status().message(), testing::HasSubstr(names)) << text;
  }

  struct Restore {
    ~Restore() { passes::SetFastStreamShapeOverride(std::nullopt); }
  } restore;
  BlurConfig c = Config(64, PixelFormat::kRgba16F, MatrixCaps());
  c.axes = "horizontal";
  passes::SetFastStreamShapeOverride(*shape);
  passes::StepKernel k = PlanFast(c).prepared.steps.at(0);
  EXPECT_THAT(k.details, testing::HasSubstr("two tiles per step"));
  EXPECT_THAT(k.details, testing::HasSubstr("along 320 outputs"));  // 120 tiles in 6 segments
  EXPECT_THAT(k.details, testing::HasSubstr("4 loaded ahead; 8 lines per workgroup"));
  EXPECT_EQ(k.spec.values[0], 64u);
  passes::SetFastStreamShapeOverride(passes::FastStreamShape{24, 4, 4, 1});
  k = PlanFast(c).prepared.steps.at(0);
  EXPECT_THAT(k.details, testing::HasSubstr("four tiles per step, with a ring of 12 blocks"));
  EXPECT_THAT(k.details, testing::HasSubstr(absl::StrCat((9 + 7) * 768, " bytes")));
  // A shape whose rings do not fit the shared memory: not streamed.
  passes::SetFastStreamShapeOverride(passes::FastStreamShape{24, 2, 2, 8});  // 8 x 12 x 768 B
  EXPECT_THAT(PlanFast(c).prepared.steps.at(0).details, testing::Not(testing::HasSubstr("streamed")));
  passes::SetFastStreamShapeOverride(std::nullopt);
  k = PlanFast(c).prepared.steps.at(0);
  EXPECT_THAT(k.details, testing::HasSubstr("along 384 outputs"));  // the table's 24 tiles
  EXPECT_THAT(k.details, testing::HasSubstr("8 lines per workgroup"));
}

TEST(FastMatrixPlan, ToeplitzBlocksHoldEveryWeightSplitInTwoHalves) {
  for (int radius : {0, 1, 7, 64, 100}) {
    SCOPED_TRACE(radius);
    // One axis: radii this small on both axes take the one-dispatch path.
    BlurConfig c = Config(radius, PixelFormat::kRgba16F, MatrixCaps());
    c.axes = "horizontal";
    const Planned p = PlanFast(c);
    ASSERT_EQ(p.plan.constants.size(), 2u);
    const std::vector<double> w = passes::GaussianWeights(radius, radius / 2.0);
    const int blocks = 1 + (2 * radius + 15) / 16;
    const std::vector<std::byte>& blob = p.plan.constants[1];
    ASSERT_EQ(blob.size(), size_t(blocks) * 512 * 2);
    std::vector<uint16_t> taps(blob.size() / 2);
    std::memcpy(taps.data(), blob.data(), blob.size());
    int nonzero = 0;
    for (int j = 0; j < blocks; ++j) {
      for (int a = 0; a < 16; ++a) {
        for (int b = 0; b < 16; ++b) {
          const int t = 16 * j + b - radius - a;
          const double want = std::abs(t) <= radius ? w[std::abs(t)] : 0.0;
          const double hi = passes::HalfToDouble(taps[j * 512 + a * 16 + b]);
          const double lo = passes::HalfToDouble(taps[j * 512 + 256 + a * 16 + b]);
          // hi alone is within 2^-11 relative; hi + lo within ~2^-22 (lo's own
          // rounding), or an absolute 2^-25 where lo is subnormal.
          EXPECT_NEAR(hi + lo, want, std::max(want * 0x1p-21, 0x1p-25)) << j << " " << a << " " << b;
          EXPECT_NEAR(hi, want, std::max(want * 0x1p-11, 0x1p-24));
          nonzero += want != 0;
        }
      }
    }
    // Every output row of every 16-block meets each of the 2R + 1 taps once.
    EXPECT_EQ(nonzero, 16 * (2 * radius + 1));
  }
}

TEST(FastMatrixPlan, FewerSubgroupsWhenThePanelGrowsAndLinePathsBeyond) {
  // R = 300: 16 × (8 + 39 − 1) = 736 panel rows; 2 subgroups need 59 KB,
  // 1 needs 35 KB (fits 48 KB). (A 512² image: on 1080p the stream runs.)
  BlurConfig small = Config(300, PixelFormat::kRgba16F, MatrixCaps());
  small.extent = {512, 512};
  Planned p = PlanFast(small);
  ASSERT_EQ(p.prepared.steps.size(), 2u);
  EXPECT_EQ(p.prepared.steps[0].spec.values[3], 1u);
  EXPECT_THAT(p.prepared.steps[0].details, testing::HasSubstr("panel"));
  // R = 1000: even one subgroup's panel (2,128 rows × 48 B) does not fit;
  // the taps split, and where a part cannot stream either (a 64² image:
  // too few subgroups) the line paths run.
  p = PlanFast(Config(1000, PixelFormat::kRgba16F, MatrixCaps()));
  for (const passes::StepKernel& k : p.prepared.steps) {
    EXPECT_THAT(k.details,
                testing::HasSubstr(absl::StrCat("taps in ", SplitParts(1000), " parts")));
  }
  BlurConfig tiny = Config(1000, PixelFormat::kRgba16F, MatrixCaps());
  tiny.extent = {64, 64};
  p = PlanFast(tiny);
  for (const passes::StepKernel& k : p.prepared.steps) {
    EXPECT_THAT(k.details, testing::Not(testing::HasSubstr("matrix units")));
    EXPECT_TRUE(k.tap_shifts.empty());
  }
  EXPECT_EQ(p.plan.constants.size(), 1u);
}

TEST(FastMatrixPlan, MaxRadiusIsTheLastTheMatrixPathTakes) {
  const int max_radius = passes::FastMatrixMaxRadius(MatrixCaps());
  EXPECT_EQ(max_radius, 448);  // 1 subgroup: 16 × (8 + 57 − 1) rows × 48 B = 48 KB
  auto uses_matrix = [](const Planned& p) {
    return p.prepared.steps[0].details.find("matrix units") != std::string::npos;
  };
  // Where the plan splits the taps, each part streams.
  for (int radius : {max_radius, max_radius + 1, 4000}) {
    const Planned p = PlanFast(Config(radius, PixelFormat::kRgba16F, MatrixCaps()));
    EXPECT_TRUE(uses_matrix(p)) << radius;
    EXPECT_EQ(p.prepared.steps[0].tap_shifts.size(), size_t(SplitParts(radius))) << radius;
  }
  EXPECT_EQ(passes::FastMatrixMaxRadius(gpu::LavapipeLikeCaps()), -1);
}

TEST(FastMatrixPlan, LinePathsWithoutMatrixUnitsOrForRgba32FUnlessAllowed) {
  const WithoutFft line_paths;  // RGBA32F rows at r = 64 would transform
  gpu::DeviceCaps no_matrix = MatrixCaps();
  no_matrix.f16_matrix_product_16 = false;
  BlurConfig allowed = Config(113, PixelFormat::kRgba32F, MatrixCaps());
  allowed.min_psnr_db = 50;  // beyond the stream's radii even when allowed
  BlurConfig too_strict = Config(64, PixelFormat::kRgba32F, MatrixCaps());
  too_strict.min_psnr_db = 57.7;  // above the 57.6 dB the fp16 path states
  for (const BlurConfig& c : {Config(64, PixelFormat::kRgba16F, no_matrix),
                              Config(64, PixelFormat::kRgba32F, no_matrix),
                              Config(64, PixelFormat::kRgba32F, MatrixCaps()),  // exact asked
                              allowed, too_strict,
                              Config(64, PixelFormat::kRgba16F, gpu::LavapipeLikeCaps())}) {
    const Planned p = PlanFast(c);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    for (const passes::StepKernel& k : p.prepared.steps) {
      EXPECT_THAT(k.details, testing::Not(testing::HasSubstr("matrix units")));
    }
    EXPECT_EQ(p.plan.constants.size(), 1u);
    EXPECT_TRUE(p.prepared.accuracy.exact);
  }
}

// The one-term RGBA32F path's bound for one axis, as fast.cc states it: the
// fp16 weights' error plus 2^-11 of Σ|fp16(w)| (w(0..R), symmetric).
double ScaledHalfAxisBound(const std::vector<double>& w) {
  double weights_error = 0, sum = 0;
  for (size_t k = 0; k < w.size(); ++k) {
    const double h = passes::HalfToDouble(passes::DoubleToHalf(w[k]));
    weights_error += (k == 0 ? 1 : 2) * std::abs(h - w[k]);
    sum += (k == 0 ? 1 : 2) * std::abs(h);
  }
  return weights_error + std::ldexp(sum, -11);
}

// RGBA32F on matrix units streams up to r = 112 (never the panel kernel,
// which reads fp16), in its own shapes (rows of 12 tiles at r = 40, where
// RGBA16F takes 20), with fp32 scratch rows
// in its shared memory; the plan states it
// approximate, with the bound of its fp16 weights and values as the PSNR;
// only where the request allows that much (min_psnr_db).
TEST(FastMatrixPlan, Rgba32FStreamsInBandsWhenAllowedAndSaysItIsApproximate) {
  EXPECT_EQ(passes::FastStreamShapeFor(40, true).max_tiles, 12u);
  EXPECT_EQ(passes::FastStreamShapeFor(40).max_tiles, 20u);
  for (int radius : {9, 32, 40, 64, 112}) {
    SCOPED_TRACE(radius);
    BlurConfig config = Config(radius, PixelFormat::kRgba32F, MatrixCaps());
    config.min_psnr_db = 50;
    const Planned p = PlanFast(config);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    for (bool columns : {false, true}) {
      const passes::StepKernel& k = p.prepared.steps[columns ? 1 : 0];
      const passes::FastStreamShape shape = passes::FastStreamShapeFor(radius, true, columns);
      const uint64_t ring = 1 + (2 * radius + 15) / 16 + shape.tiles_per_step - 1;
      const uint64_t bytes = shape.warps * ((ring * 16 * 6 + shape.tiles_per_step * 16 * 10) * 8);
      EXPECT_THAT(k.details, testing::HasSubstr("streamed"));
      EXPECT_THAT(k.details, testing::HasSubstr("magnitude band"));
      EXPECT_THAT(k.details, testing::HasSubstr(absl::StrCat(bytes, " bytes")));
    }
    EXPECT_FALSE(p.prepared.accuracy.exact);
    ASSERT_TRUE(p.prepared.accuracy.noise_psnr_db.has_value());
    // The bound: per axis the fp16 weights' error plus 2^-11 of Σ|w|.
    const double bound =
        2 * ScaledHalfAxisBound(passes::GaussianWeights(radius, radius / 2.0));
    EXPECT_NEAR(*p.prepared.accuracy.noise_psnr_db, -20 * std::log10(bound), 1e-9);
    EXPECT_LT(bound, 1.6e-3);
    EXPECT_THAT(p.prepared.accuracy.summary, testing::HasSubstr("approximate"));
  }
}

// The worst errors of one group of 4 lines (n pixels, 4 channels, pieces of
// `piece` pixels at amplitudes 10^[-6, 6]) in the model of the one-term
// RGBA32F path (FastScaledHalf.TheBoundHoldsAgainstTheBlocksRead says what
// it models): against the largest magnitude in the blocks each output's
// window reads, and against its window's own largest.
struct ScaledHalfWorst {
  double blocks = 0, window = 0;
};
ScaledHalfWorst ScaledHalfGroupWorst(int radius, int piece, bool flush, std::mt19937& rng) {
  constexpr int kLines = 4, kChannels = 4, n = 480;
  std::uniform_real_distribution<double> unit(0.0, 1.0), decades(-6.0, 6.0);
  const std::vector<double> w = passes::GaussianWeights(radius, radius / 2.0);
  std::vector<double> wh(w.size());
  for (size_t k = 0; k < w.size(); ++k) wh[k] = passes::HalfToDouble(passes::DoubleToHalf(w[k]));
  const auto half = [flush](double v) {
    const double h = passes::HalfToDouble(passes::DoubleToHalf(v));
    return flush && std::abs(h) < std::ldexp(1.0, -14) ? 0.0 : h;
  };
  const int pieces = (n + piece - 1) / piece;
  std::vector<double> amplitude(kLines * pieces);
  for (double& a : amplitude) a = std::pow(10.0, decades(rng));
  std::vector<double> x(size_t(kLines) * n * kChannels);
  const auto value = [&](int l, int i, int c) -> double& {
    return x[(size_t(l) * n + std::clamp(i, 0, n - 1)) * kChannels + c];
  };
  // The largest magnitude over 4 lines, 4 channels and pixels from .. to.
  const auto largest = [&](int from, int to) {
    double m = 0;
    for (int l = 0; l < kLines; ++l) {
      for (int i = from; i <= to; ++i) {
        for (int c = 0; c < kChannels; ++c) m = std::max(m, std::abs(value(l, i, c)));
      }
    }
    return m;
  };
  for (int l = 0; l < kLines; ++l) {
    for (int i = 0; i < n; ++i) {
      for (int c = 0; c < kChannels; ++c) {
        value(l, i, c) = double(float(amplitude[l * pieces + i / piece] * unit(rng)));
      }
    }
  }
  // Block k: pixels 16k − R .. 16k − R + 15 (clamped), its band from its largest.
  const int blocks = (n + 2 * radius) / 16 + 1;
  std::vector<int> band(blocks);
  std::vector<double> block_largest(blocks);
  for (int k = 0; k < blocks; ++k) {
    block_largest[k] = largest(16 * k - radius, 16 * k - radius + 15);
    band[k] = int(std::floor((std::ilogb(block_largest[k]) + 14) / 18.0));
  }
  ScaledHalfWorst worst;
  for (int i = 0; i < n; ++i) {
    const int first = i / 16, last = (i + 2 * radius) / 16;  // the blocks it reads
    bool one_band = true;
    double blocks_largest = 0;
    for (int k = first; k <= last; ++k) {
      one_band = one_band && band[k] == band[first];
      blocks_largest = std::max(blocks_largest, block_largest[k]);
    }
    if (!one_band) continue;  // the kernel computes those in fp32
    const double scale = std::ldexp(1.0, 11 - 18 * band[first]);
    const double window_largest = largest(i - radius, i + radius);
    for (int l = 0; l < kLines; ++l) {
      for (int c = 0; c < kChannels; ++c) {
        double exact = 0, got = 0;
        for (int d = -radius; d <= radius; ++d) {
          exact += w[std::abs(d)] * value(l, i + d, c);
          got += wh[std::abs(d)] * half(value(l, i + d, c) * scale);
        }
        const double error = std::abs(got / scale - exact);
        worst.blocks = std::max(worst.blocks, error / blocks_largest);
        worst.window = std::max(worst.window, error / window_largest);
      }
    }
  }
  return worst;
}

// fast's one-term RGBA32F path (where a request allows it) on the CPU, as
// the streamed kernel computes an output whose step runs on the matrix
// units: each block of 16 pixels of 4 lines scaled by 2^(11 − 18·band),
// its band from its largest magnitude (BandOfExponent in
// gaussian_blur_fast_stream.comp), every value rounded to fp16 (fp16
// subnormals kept, or flushed as a GPU may), the weights too, the sum in
// double. Lines of pieces of 20 and 100 pixels whose amplitudes differ by
// up to 10^12. Every output is within the plan's bound (Σ|w − fp16(w)| +
// 2^-11·Σ|w|, one axis) of the largest magnitude in the blocks its window
// reads. Not of its window's own largest: where a block's largest lies
// outside the window (pieces of 20 px), the window's values keep fewer bits,
// and the error against the window alone passes the bound many times: the
// plan's statement names the blocks for that reason (r = 7: a window of 15
// pixels fits inside a piece of 20 while its blocks reach the next).
TEST(FastScaledHalf, TheBoundHoldsAgainstTheBlocksRead) {
  std::mt19937 rng(77);
  for (int radius : {7, 40}) {
    const double bound = ScaledHalfAxisBound(passes::GaussianWeights(radius, radius / 2.0));
    for (int piece : {20, 100}) {
      for (bool flush : {false, true}) {
        ScaledHalfWorst worst;
        for (int group = 0; group < 8; ++group) {
          const ScaledHalfWorst g = ScaledHalfGroupWorst(radius, piece, flush, rng);
          worst.blocks = std::max(worst.blocks, g.blocks);
          worst.window = std::max(worst.window, g.window);
        }
        SCOPED_TRACE(absl::StrCat("r = ", radius, ", pieces of ", piece, flush ? ", flushed" : ""));
        EXPECT_LE(worst.blocks, bound);
        if (radius == 7 && piece == 20) {
          EXPECT_GT(worst.window, 10 * bound);
        }
        std::printf("r = %d, pieces of %d px%s: worst %.2e of the blocks' largest (bound %.2e), "
                    "%.2e of the window's\n",
                    radius, piece, flush ? ", subnormals flushed" : "", worst.blocks, bound,
                    worst.window);
      }
    }
  }
}

// Radii up to 8 on both axes: one step, one dispatch, the largest tile whose
// staged halo fits the shared memory (the blurred rows go back over it) and
// whose row runs the shader's 256 invocations take at most 2 each; beyond,
// or along one axis, or where no tile fits, the two-step paths.
TEST(FastBothAxesPlan, SmallRadiiTakeOneDispatchWhereATileFits) {
  gpu::DeviceCaps no_matrix = MatrixCaps();  // both axes stream from r = 7 with them (below)
  no_matrix.f16_matrix_product_16 = false;
  for (PixelFormat working : {PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    for (int radius : {0, 1, 5, 8}) {
      SCOPED_TRACE(::testing::Message() << radius << " " << (working == PixelFormat::kRgba32F));
      const Planned p = PlanFast(Config(radius, working, no_matrix));
      ASSERT_EQ(p.plan.steps.size(), 1u);
      EXPECT_EQ(p.plan.steps[0].label, "both axes");
      EXPECT_TRUE(p.plan.temp_extents.empty());
      ASSERT_EQ(p.prepared.steps.size(), 1u);
      const passes::StepKernel& k = p.prepared.steps[0];
      EXPECT_THAT(k.details, testing::HasSubstr("both axes in one dispatch"));
      const uint32_t tile_w = k.spec.values[2], tile_h = k.spec.values[3];
      const uint64_t pixel = working == PixelFormat::kRgba32F ? 16 : 8;
      const uint64_t in_h = tile_h + 2 * radius;
      const bool in_place = k.spec.values[4] != 0;
      // Rows one pixel longer than used: the shader's odd strides.
      const uint64_t rows = in_place ? 1 : in_h * (tile_w + 1);
      EXPECT_LE((in_h * (tile_w + 2 * radius + 1) + rows) * pixel + 4 * (radius + 1), 48u << 10);
      EXPECT_LE(in_h * (tile_w / 8), 512u);
      // Two arrays while a tile of at least 32x32 fits so (RGBA16F: 64x32 to
      // r = 5, 32x32 beyond; RGBA32F: 32x32 to r = 4); in place beyond
      // (RGBA32F at r = 5-8: 32x32, where two arrays allowed only 32x16).
      const bool f16 = working == PixelFormat::kRgba16F;
      EXPECT_EQ(in_place, !f16 && radius > 4);
      EXPECT_EQ(tile_w, f16 && radius <= 5 ? 64u : 32u);
      EXPECT_EQ(tile_h, 32u);
      EXPECT_EQ(k.details.find("rows over the staged pixels") != std::string::npos, in_place);
      EXPECT_EQ(tile_w % 8, 0u);
      EXPECT_EQ(tile_h % 8, 0u);
      // Column runs: the longest of 8, 4, 2 that gives each of the 256
      // invocations one (32x32: 4; 64x32: 8).
      ASSERT_EQ(k.spec.values.size(), 7u);
      EXPECT_EQ(k.spec.values[5], tile_w == 64 ? 8u : 4u);
      EXPECT_EQ(k.groups_x, (1920 + tile_w - 1) / tile_w);
      EXPECT_EQ(k.groups_y, (1080 + tile_h - 1) / tile_h);
      EXPECT_THAT(p.prepared.accuracy.summary, testing::HasSubstr("float rounding only"));
    }
  }
  BlurConfig one_axis = Config(4, PixelFormat::kRgba16F, MatrixCaps());
  one_axis.axes = "vertical";
  EXPECT_EQ(PlanFast(one_axis).plan.steps.size(), 1u);
  EXPECT_EQ(PlanFast(one_axis).plan.steps[0].label, "vertical");
  EXPECT_EQ(PlanFast(Config(9, PixelFormat::kRgba16F, no_matrix)).plan.steps.size(), 2u);
  gpu::DeviceCaps tiny = no_matrix;
  tiny.max_compute_shared_memory_bytes = 4 << 10;
  EXPECT_EQ(PlanFast(Config(8, PixelFormat::kRgba32F, tiny)).plan.steps.size(), 2u);
}

// The vertical pass on the line paths (RGBA32F, or no matrix units): columns
// staged in tiles of 32 bytes per row (2 RGBA32F or 4 RGBA16F pixels), 64
// invocations, where the tile fits beside the weights and its halo is at
// most 4 times the rows it blurs (256 RGBA32F, 128 RGBA16F); read straight
// from memory beyond. RGBA32F tiles up to r = 128 take 96 invocations (384
// rows) where they fit and stage fewer rows in all: 1080 rows, 3 tiles
// against 5. The horizontal pass keeps its row segments.
TEST(FastColumnPlan, ColumnsStagedInTilesWhereTheyFit) {
  struct Want {
    PixelFormat working;
    int radius;
    bool tiles;
    uint32_t group;  // invocations of a tile
  };
  // 48 KB, weights 4·(2R + 33) bytes. RGBA32F: 2 columns of 256 + 2R rows
  // (+1/8 padding) × 16 B: 40.8 KB at R = 450 (44.3 KB free), 45.2 KB at
  // R = 500 (44.0 free); the taller tile (384 + 2R rows) only up to
  // R = 128 (measured slower at 256). RGBA16F: the halo limit, 2R <= 512,
  // comes first.
  const Want wants[] = {
      {PixelFormat::kRgba32F, 9, true, 96},    {PixelFormat::kRgba32F, 64, true, 96},
      {PixelFormat::kRgba32F, 128, true, 96},  {PixelFormat::kRgba32F, 129, true, 64},
      {PixelFormat::kRgba32F, 450, true, 64},  {PixelFormat::kRgba32F, 500, false, 0},
      {PixelFormat::kRgba16F, 64, true, 64},   {PixelFormat::kRgba16F, 256, true, 64},
      {PixelFormat::kRgba16F, 257, false, 0}};
  gpu::DeviceCaps no_matrix = MatrixCaps();
  no_matrix.f16_matrix_product_16 = false;
  const WithoutFft line_paths;
  for (const Want& want : wants) {
    const bool f32 = want.working == PixelFormat::kRgba32F;
    SCOPED_TRACE(::testing::Message() << want.radius << (f32 ? " rgba32f" : " rgba16f"));
    const Planned p = PlanFast(Config(want.radius, want.working, no_matrix));
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    EXPECT_THAT(p.prepared.steps[0].details, testing::HasSubstr("row segments"));
    const passes::StepKernel& v = p.prepared.steps[1];
    if (!want.tiles) {
      EXPECT_THAT(v.details, testing::HasSubstr("columns read directly"));
      continue;
    }
    EXPECT_THAT(v.details, testing::HasSubstr("column tiles"));
    const uint32_t columns = f32 ? 2 : 4;
    ASSERT_EQ(v.spec.values.size(), 7u);
    EXPECT_EQ(v.spec.values[0], want.group);
    EXPECT_EQ(v.spec.values[2], 2u);  // the shader's path 2
    EXPECT_EQ(v.spec.values[5], columns);
    const uint32_t span = want.group / columns * 8;
    EXPECT_THAT(v.details, testing::HasSubstr(absl::StrCat(columns, " x ", span, " px")));
    const uint32_t rows = span + (2 * want.radius + 7) / 8 * 8;
    EXPECT_GE(v.spec.values[3], (rows + (rows + 7) / 8) * columns);  // the padded tile
    EXPECT_EQ(v.spec.values[3] % 8, 0u);
    EXPECT_LE(v.spec.values[3] * (f32 ? 16 : 8) + 4 * (2 * want.radius + 33), 48u << 10);
    EXPECT_EQ(v.groups_x, 1920 / columns);
    EXPECT_EQ(v.groups_y, (1080 + span - 1) / span);
  }
}

// The taller RGBA32F column tile is taken only where it stages fewer rows
// in all, ⌈rows / span⌉ · (span + 2R rounded to 8): at r = 64, 512 rows
// stage 2 · 384 in tiles of 256 against 2 · 512 in tiles of 384 (64
// invocations), 2048 rows 8 · 384 = 6 · 512 (a tie keeps 64), 2160 rows
// 9 · 384 against 6 · 512 (96), 1081 rows 5 · 384 against 3 · 512 (96).
TEST(FastColumnPlan, TallerTilesOnlyWhereTheyStageFewerRows) {
  const WithoutFft line_paths;
  gpu::DeviceCaps no_matrix = MatrixCaps();
  no_matrix.f16_matrix_product_16 = false;
  for (auto [rows, group] : {std::pair{512u, 64u}, std::pair{2048u, 64u}, std::pair{2160u, 96u},
                             std::pair{1081u, 96u}, std::pair{256u, 64u}}) {
    SCOPED_TRACE(::testing::Message() << rows << " rows");
    BlurConfig config = Config(64, PixelFormat::kRgba32F, no_matrix);
    config.extent = {640, rows};
    const Planned p = PlanFast(config);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    const passes::StepKernel& v = p.prepared.steps[1];
    ASSERT_THAT(v.details, testing::HasSubstr("column tiles"));
    EXPECT_EQ(v.spec.values[0], group);
    EXPECT_EQ(v.groups_y, (rows + group * 4 - 1) / (group * 4));  // span: group / 2 · 8 rows
  }
}

// The benchmarks' override of the line paths' groups: rows in segments of
// 8 pixels an invocation, columns in tiles of 8 rows an invocation per
// column; a column group whose tile does not fit the shared memory keeps
// the plan's. Cleared, the plan's again.
TEST(FastColumnPlan, LineGroupsFollowTheBenchmarkOverride) {
  const WithoutFft line_paths;
  gpu::DeviceCaps no_matrix = MatrixCaps();
  no_matrix.f16_matrix_product_16 = false;
  const BlurConfig config = Config(64, PixelFormat::kRgba32F, no_matrix);
  passes::SetFastLineGroups(128u, 160u);
  const Planned set = PlanFast(config);
  passes::SetFastLineGroups(std::nullopt, 1024u);  // 4,096 rows: beyond 48 KB
  const Planned too_tall = PlanFast(config);
  passes::SetFastLineGroups(std::nullopt, std::nullopt);
  const Planned plan = PlanFast(config);
  ASSERT_EQ(set.prepared.steps.size(), 2u);
  EXPECT_THAT(set.prepared.steps[0].details, testing::HasSubstr("row segments of 1024 px"));
  EXPECT_EQ(set.prepared.steps[0].spec.values[0], 128u);
  EXPECT_THAT(set.prepared.steps[1].details, testing::HasSubstr("column tiles of 2 x 640 px"));
  EXPECT_EQ(set.prepared.steps[1].spec.values[0], 160u);
  EXPECT_EQ(too_tall.prepared.steps[1].spec.values[0], plan.prepared.steps[1].spec.values[0]);
  EXPECT_THAT(plan.prepared.steps[0].details, testing::HasSubstr("row segments of 512 px"));
  EXPECT_EQ(plan.prepared.steps[1].spec.values[0], 96u);  // 1,080 rows at r = 64: the taller tile
}

}  // namespace
}  // namespace rgfx

namespace rgfx {
namespace {

// Where both axes stream on the matrix units (RGBA16F, enough subgroups),
// the one-dispatch kernel keeps only r <= 6: from r = 7 two streamed steps
// measured faster. RGBA32F, or an image too small to stream, keeps it to
// r = 8.
TEST(FastBothAxesPlan, BothAxesStreamFromRadius7OnMatrixUnits) {
  for (int radius : {0, 6, 7, 8}) {
    SCOPED_TRACE(radius);
    const Planned p = PlanFast(Config(radius, PixelFormat::kRgba16F, MatrixCaps()));
    if (radius <= 6) {
      ASSERT_EQ(p.plan.steps.size(), 1u);
      EXPECT_EQ(p.plan.steps[0].label, "both axes");
      continue;
    }
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    for (const passes::StepKernel& k : p.prepared.steps) {
      EXPECT_THAT(k.details, testing::HasSubstr("matrix units, streamed"));
    }
    EXPECT_EQ(PlanFast(Config(radius, PixelFormat::kRgba32F, MatrixCaps())).plan.steps.size(), 1u);
    BlurConfig small = Config(radius, PixelFormat::kRgba16F, MatrixCaps());
    small.extent = {512, 512};  // 128 groups of 4 lines, 32 tiles: too few subgroups
    EXPECT_EQ(PlanFast(small).plan.steps.size(), 1u);
  }
}

// Where both passes stream in RGBA16F up to J = 4 (r <= 24), the temporary
// between them is laid out in tiles of 4 x 16 pixels (specialization
// constant 8 of the streamed kernel: 1 tiles, 2 tiles with the row pass
// storing 4 lines x 8 pixels an instruction, which it does where it
// computes one tile per step) and padded to whole tiles; elsewhere it stays
// in lines (0) at the image's size: from J = 5, in RGBA32F, along one axis
// only, and where only one pass streams. A tiled temporary read as lines,
// or a temporary too small for its tiles, would blur wrong pixels or read
// past the buffer.
TEST(FastMatrixPlan, TemporaryInTilesWhereBothPassesStreamUpToRadius24) {
  struct Case {
    int radius;
    uint32_t width, height;
    bool tiled;
  };
  const Case cases[] = {{7, 1920, 1080, true},   {8, 1920, 1080, true},  {16, 1920, 1080, true},
                        {17, 1130, 601, true},   {24, 1920, 1080, true}, {24, 3840, 2160, true},
                        {25, 1920, 1080, false}, {64, 1920, 1080, false}};
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << c.width << "x" << c.height << " r = " << c.radius);
    BlurConfig config = Config(c.radius, PixelFormat::kRgba16F, MatrixCaps());
    config.extent = {c.width, c.height};
    const Planned p = PlanFast(config);
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    ASSERT_EQ(p.plan.temp_extents.size(), 1u);
    const passes::StepKernel& rows = p.prepared.steps[0];
    const passes::StepKernel& columns = p.prepared.steps[1];
    ASSERT_THAT(rows.details, testing::HasSubstr("streamed"));
    ASSERT_THAT(columns.details, testing::HasSubstr("streamed"));
    if (!c.tiled) {
      EXPECT_EQ(p.plan.temp_extents[0], config.extent);
      EXPECT_EQ(rows.spec.values.at(8), 0u);
      EXPECT_EQ(columns.spec.values.at(8), 0u);
      EXPECT_THAT(rows.details + columns.details, testing::Not(testing::HasSubstr("tiles of")));
      continue;
    }
    EXPECT_EQ(p.plan.temp_extents[0].width, (c.width + 3) / 4 * 4);
    EXPECT_EQ(p.plan.temp_extents[0].height, (c.height + 15) / 16 * 16);
    const bool one_tile_a_step =
        passes::FastStreamShapeFor(c.radius, false, false).tiles_per_step == 1;
    EXPECT_EQ(rows.spec.values.at(8), one_tile_a_step ? 2u : 1u);
    EXPECT_EQ(columns.spec.values.at(8), 1u);
    EXPECT_THAT(rows.details, testing::HasSubstr("stores the temporary in tiles of 4 x 16 px"));
    EXPECT_THAT(columns.details, testing::HasSubstr("loads the temporary in tiles of 4 x 16 px"));
  }
  // r = 7, 8, 24 compute one tile per step along rows, r = 16 two: both
  // store mappings are planned above.
  EXPECT_EQ(passes::FastStreamShapeFor(8, false, false).tiles_per_step, 1u);
  EXPECT_EQ(passes::FastStreamShapeFor(16, false, false).tiles_per_step, 2u);

  BlurConfig allowed = Config(16, PixelFormat::kRgba32F, MatrixCaps());
  allowed.min_psnr_db = 50;  // both passes stream, in fp16 bands
  BlurConfig one_axis = Config(16, PixelFormat::kRgba16F, MatrixCaps());
  one_axis.axes = "horizontal";
  BlurConfig rows_only = Config(16, PixelFormat::kRgba16F, MatrixCaps());
  rows_only.extent = {64, 4100};  // 16 groups of columns: too few subgroups to stream
  for (const BlurConfig& config : {allowed, one_axis, rows_only}) {
    SCOPED_TRACE(config.axes + " " + std::string(graph::PixelFormatName(config.working)));
    const Planned p = PlanFast(config);
    for (const passes::StepKernel& k : p.prepared.steps) {
      EXPECT_THAT(k.details, testing::Not(testing::HasSubstr("tiles of 4 x 16")));
      if (k.details.find("streamed") != std::string::npos) {
        EXPECT_EQ(k.spec.values.at(8), 0u);
      }
    }
    for (const graph::Extent& e : p.plan.temp_extents) EXPECT_EQ(e, config.extent);
  }
  const Planned rows_only_plan = PlanFast(rows_only);
  ASSERT_EQ(rows_only_plan.prepared.steps.size(), 2u);
  EXPECT_THAT(rows_only_plan.prepared.steps[0].details, testing::HasSubstr("streamed"));
  EXPECT_THAT(rows_only_plan.prepared.steps[1].details,
              testing::Not(testing::HasSubstr("streamed")));
}

// The blocks wait in registers (specialization constant 9 of the streamed
// kernel) where the table's shape says so, RGBA16F only; shared memory then
// holds N staging blocks and N scratch blocks a subgroup instead of a ring
// of J + N − 1. A plan that set the constant without shrinking the bytes
// would misjudge the one-wave rule; one that kept it for RGBA32F would run
// a build that ignores it.
TEST(FastMatrixPlan, BlocksInRegistersWhereTheTableSays) {
  int rings = 0;
  for (int radius : {8, 16, 24, 32, 40, 48, 56, 64, 80, 96}) {
    const Planned p = PlanFast(Config(radius, PixelFormat::kRgba16F, MatrixCaps()));
    ASSERT_EQ(p.prepared.steps.size(), 2u);
    for (bool columns : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "r = " << radius << (columns ? " columns" : " rows"));
      const passes::StepKernel& k = p.prepared.steps[columns ? 1 : 0];
      const passes::FastStreamShape shape =
          passes::FastStreamShapeFor(radius, false, columns);
      EXPECT_EQ(k.spec.values.at(9), shape.register_ring);
      const uint64_t slots = shape.register_ring == 1
                                 ? shape.tiles_per_step
                                 : 1 + (2 * radius + 15) / 16 + shape.tiles_per_step - 1;
      EXPECT_THAT(k.details,
                  testing::HasSubstr(absl::StrCat(
                      shape.warps * (slots + shape.tiles_per_step) * 768, " bytes")));
      EXPECT_EQ(k.details.find("blocks in registers") != std::string::npos,
                shape.register_ring == 1);
      rings += shape.register_ring;
    }
  }
  EXPECT_GE(rings, 4);  // rows and columns at r = 32 among them
  EXPECT_EQ(passes::FastStreamShapeFor(32, false, false).register_ring, 1u);
  EXPECT_EQ(passes::FastStreamShapeFor(32, false, true).register_ring, 1u);
  EXPECT_EQ(passes::FastStreamShapeFor(64, false, false).register_ring, 1u);
  EXPECT_EQ(passes::FastStreamShapeFor(96, false, false).register_ring, 0u);
  EXPECT_EQ(passes::FastStreamShapeFor(96, false, true).register_ring, 0u);
  BlurConfig allowed = Config(32, PixelFormat::kRgba32F, MatrixCaps());
  allowed.min_psnr_db = 50;
  for (const passes::StepKernel& k : PlanFast(allowed).prepared.steps) {
    EXPECT_EQ(k.spec.values.at(9), 0u) << k.details;
    EXPECT_THAT(k.details, testing::Not(testing::HasSubstr("blocks in registers")));
  }
}

// Every kernel of every path takes the border mode as a specialization
// constant (each unrolled load then carries only its own mode's mapping;
// the shaders ignore any border in their push constants): id 6 in the
// one-dispatch, streamed and line-path shaders (the last value but in the
// streamed kernel, whose accumulator chains are id 7), id 5 in the panel
// kernel. A plan that kept clamp here would blur mirror, wrap and
// zero requests with clamped borders.
TEST(FastPlan, EveryKernelTakesTheBorderModeAsASpecializationConstant) {
  gpu::DeviceCaps no_matrix = MatrixCaps();
  no_matrix.f16_matrix_product_16 = false;
  struct Case {
    int radius;
    PixelFormat working;
    gpu::DeviceCaps caps;
    const char* path;  // a substring of the plan's details
    graph::Extent extent = {1920, 1080};
    bool without_fft = false;  // (the FFT takes these columns where it may)
  };
  const Case cases[] = {
      {3, PixelFormat::kRgba16F, MatrixCaps(), "both axes in one dispatch"},
      {64, PixelFormat::kRgba16F, MatrixCaps(), "streamed"},
      {150, PixelFormat::kRgba16F, MatrixCaps(), "streamed"},
      {150, PixelFormat::kRgba16F, MatrixCaps(), "panel", {512, 512}},
      {32, PixelFormat::kRgba32F, no_matrix, "row segments"},
      {64, PixelFormat::kRgba32F, no_matrix, "column tiles", {1920, 1080}, true},
      {500, PixelFormat::kRgba32F, no_matrix, "columns read directly", {1920, 1080}, true},
      {1024, PixelFormat::kRgba32F, no_matrix, "FFT"}};
  for (const uint32_t border :
       {RGFX_BORDER_CLAMP, RGFX_BORDER_MIRROR, RGFX_BORDER_WRAP, RGFX_BORDER_ZERO}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message() << "border " << border << ", r = " << c.radius << ", "
                                        << c.path);
      BlurConfig config = Config(c.radius, c.working, c.caps);
      config.extent = c.extent;
      config.border = border;
      std::optional<WithoutFft> line_paths;
      if (c.without_fft) line_paths.emplace();
      const Planned p = PlanFast(config);
      bool found = false;
      for (const passes::StepKernel& k : p.prepared.steps) {
        found = found || k.details.find(c.path) != std::string::npos;
        const bool panel = k.details.find("panel") != std::string::npos;
        const bool streamed = k.details.find("streamed") != std::string::npos;
        const bool fft = k.details.find("FFT") != std::string::npos;
        // The streamed kernel's accumulator chains, the temporary's layout
        // and the blocks in registers come after the border, as do the FFT's
        // lines a workgroup and the temporary's strips.
        ASSERT_EQ(k.spec.values.size(), fft ? 6u : panel ? 6u : streamed ? 10u : 7u) << k.details;
        EXPECT_EQ(k.spec.values[fft ? 2 : panel ? 5 : 6], border) << k.details;
      }
      EXPECT_TRUE(found) << "no step on the path named";
    }
  }
}

// Rows whose segment of the plan's 64 invocations and halo does not fit the
// shared memory (RGBA32F on 48 KB: r = 1024 needs 50 KB) take the strided
// rows (lanes along the row, 512 px a workgroup), not lines read one per
// invocation; a plan that fits keeps its segments, and so does a benchmark
// override of the group where it fits.
TEST(FastRowPlan, RowsTakeTheStridedPathWhereNoSegmentFits) {
  const WithoutFft line_paths;
  gpu::DeviceCaps no_matrix = MatrixCaps();
  no_matrix.f16_matrix_product_16 = false;
  const auto rows = [&](int radius) {
    const Planned p = PlanFast(Config(radius, PixelFormat::kRgba32F, no_matrix));
    EXPECT_EQ(p.prepared.steps.size(), 2u);
    return p.prepared.steps.empty() ? passes::StepKernel() : p.prepared.steps[0];
  };
  const passes::StepKernel r768 = rows(768), r1024 = rows(1024), r4096 = rows(4096);
  EXPECT_THAT(r768.details, testing::HasSubstr("row segments of 512 px + halo 2x768"));
  EXPECT_EQ(r768.spec.values[0], 64u);
  for (const passes::StepKernel& k : {r1024, r4096}) {
    EXPECT_THAT(k.details, testing::HasSubstr("rows read directly, 32 invocations along 256 px"));
    EXPECT_EQ(k.spec.values[0], 64u);
    EXPECT_EQ(k.spec.values[2], 3u);  // the shader's path 3
    EXPECT_EQ(k.groups_x, (1920u + 511) / 512);
    EXPECT_EQ(k.groups_y, 1080u);
  }
  passes::SetFastLineGroups(32u, std::nullopt);  // 256 px + halo: 45 KB at r = 1024
  const passes::StepKernel r1024_32 = rows(1024);
  passes::SetFastStridedRowsFrom(64u);
  const passes::StepKernel r64_strided = rows(64);
  passes::SetFastStridedRowsFrom(std::nullopt);
  passes::SetFastLineGroups(std::nullopt, std::nullopt);
  EXPECT_THAT(r1024_32.details, testing::HasSubstr("row segments of 256 px + halo 2x1024"));
  EXPECT_THAT(r64_strided.details, testing::HasSubstr("32 invocations along"));
}

}  // namespace
}  // namespace rgfx
