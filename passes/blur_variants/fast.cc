// fast: every tap, weights precomputed in double, kFastOutputs consecutive
// outputs per invocation from a sliding window, no transposes
// (shaders/gaussian_blur_fast.comp). Rows stage a segment plus its halo in
// shared memory; columns stage a tile of 32-byte row pieces plus its halo;
// where a halo does not fit, lines are read straight from memory: columns
// by invocations that each take one line, rows by 32 invocations along a
// segment, each with outputs 32 pixels apart (PlanStridedRows).
// On devices with matrix units (VK_NV_cooperative_matrix, 16×16×16 fp16
// products) and the RGBA16F working format, both axes run as products with
// banded Toeplitz matrices instead: each subgroup streams along its lines
// with fp16 weight blocks in registers, in a shape (segment length, tiles
// per step, queue depth, subgroups per workgroup, blocks held in registers,
// accumulator chains per tile) measured per radius band and per axis
// (shaders/gaussian_blur_fast_stream.comp); from r = 384 the taps are cut
// into parts, one streamed dispatch each, their sums meeting in an fp32
// temporary (PlanSplitStream); where an image gives too few subgroups to
// stream, a workgroup stages a panel with the weights split in two fp16
// terms (shaders/gaussian_blur_fast_tensor.comp). In RGBA32F the same streamed
// kernel runs up to r = 112 with each block of 16 pixels scaled into fp16
// by a power of two chosen by its magnitude band (steps whose blocks are in
// different bands computed in fp32): ~2^-11 of the window's largest value
// instead of fp32's 2^-24: an approximation (its plan states a PSNR), so it
// runs only where the request allows that much (min_psnr_db > 0, at most
// the stated PSNR); otherwise, and on every other device, format or
// radius, the paths above. In RGBA32F an axis of long enough radius goes
// through the FFT instead where a cost model fitted to the H200 says it
// pays (fast_fft.h: lines of up to 4096 points with their borders; each
// output keeps the direct sum's precision relative to its own window).
// Small radii blurred on both axes take neither: one dispatch does both in
// shared memory (shaders/gaussian_blur_fast_2d.comp), reading and writing the
// image once instead of twice; on the matrix units streaming is faster from
// r = 7.
#include "passes/blur_variants/fast.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/str_format.h"
#include "passes/blur_variants/blur_variant.h"
#include "passes/blur_variants/fast_fft.h"
#include "passes/gaussian_weights.h"
#include "passes/half_float.h"
#include "passes/pass_util.h"
#include "kGaussianBlurFastF16.h"
#include "kGaussianBlurFastF32.h"
#include "kGaussianBlurFast2dF16.h"
#include "kGaussianBlurFast2dF32.h"
#include "kGaussianBlurFastStreamF16.h"
#include "kGaussianBlurFastStreamPairsF16.h"
#include "kGaussianBlurFastStreamQuadsF16.h"
#include "kGaussianBlurFastStreamSplitF16.h"
#include "kGaussianBlurFastStreamPairsSplitF16.h"
#include "kGaussianBlurFastStreamQuadsSplitF16.h"
#include "kGaussianBlurFastStreamF32.h"
#include "kGaussianBlurFastStreamPairsF32.h"
#include "kGaussianBlurFastStreamQuadsF32.h"
#include "kGaussianBlurFastTensorF16.h"

namespace rgfx::passes {
namespace {

using graph::StepResource;

constexpr uint32_t kFastOutputs = 8;         // outputs per invocation
constexpr uint32_t kFastRowGroup = 64;       // invocations per row segment
constexpr uint32_t kFastColumnGroup = 64;    // adjacent columns per workgroup
// Column tiles (the shader's path 2): 32 bytes of each row (one memory
// sector), 64 invocations, while the halo (2R rows) is at most
// kColumnTileMaxHaloSpans times the rows the tile blurs. H100, 1080p,
// vertical pass, µs: RGBA32F with 64 / 128 / 256 invocations r = 16
// 42.8 / 44.5 / 55.6, r = 64 87.6 / 89.9 / 108.8, r = 256 300.0 / 318.0 /
// (no fit), against columns read directly (path 1) 45.6, 108.3, 369.7;
// r = 448 (halo 3.5 spans) 597.5 against 632.8; RGBA16F r = 512 (halo 8
// spans) 818.2 against 614.9; 32 invocations at RGBA32F r = 512 1711.6
// against 854 (docs/PERFORMANCE.md).
constexpr uint32_t kColumnTileRowBytes = 32;
constexpr uint32_t kColumnTileGroup = 64;
constexpr uint32_t kColumnTileMaxHaloSpans = 4;
// RGBA32F tiles may take 96 invocations instead (2 columns of 384 rows),
// where that stages fewer rows in all and the radius is at most
// kColumnTileTallMaxRadius (ColumnTileGroup). H100, RGBA32F, vertical
// pass, µs, 64 against 96 invocations in the same call (2026-11-28):
// 1080p r = 16 39.4 / 37.9, r = 64 74.5 / 72.2, r = 112 117.0 / 110.8
// (1080 rows: 5 tiles of 256, the last 56 rows full, against 3 of 384);
// 4K r = 64 238.1 / 229.1 (9 tiles against 6). In the sweeps: 1080p
// r = 32 51.5 / 47.6, r = 128 128.0 / 122.4, but r = 256 260.4 / 294.9;
// 4096² r = 64 472.8 / 442.9, r = 256 1,689.9 / 2,215.7 (the taller tile
// with a halo of 512 rows holds 32 KB of shared memory: fewer workgroups
// fit a multiprocessor). Radii between 128 and 256 were not measured.
constexpr uint32_t kColumnTileTallGroup = 96;
constexpr uint32_t kColumnTileTallMaxRadius = 128;

// The matrix path (must match gaussian_blur_fast_tensor.comp): 16×16 tiles,
// `tiles` tiles along the axis per subgroup, 4 lines × 4 channels per tile
// column, a panel row of 4 lines per subgroup plus 8 halves of padding.
struct MatrixShape {
  uint32_t warps;
  uint32_t tiles;
};
// StepKernel::shader: 0 (the default) runs the line paths, these the others.
constexpr int kShaderMatrix = 1;
constexpr int kShaderBothAxes = 2;
constexpr int kShaderMatrixStream = 3;
constexpr int kShaderMatrixStreamPairs = 4;  // the streamed kernel, two tiles per step
constexpr int kShaderMatrixStreamQuads = 5;  // the streamed kernel, four tiles per step
bool IsStreamShader(int shader) {
  return shader >= kShaderMatrixStream && shader <= kShaderMatrixStreamQuads;
}

// The streamed kernel's build for its tiles per step (`shader`) and the
// working format; RGBA32F's also reads the fp32 weights (binding 3) for the
// steps it computes in fp32.
gpu::ShaderCode StreamShaderCode(int shader, graph::PixelFormat working, uint32_t push_bytes) {
  const bool f32 = working == graph::PixelFormat::kRgba32F;
  const uint32_t buffers = f32 ? 4 : 3;
  if (shader == kShaderMatrixStreamQuads) {
    return WorkingShader(working,
                         f32 ? "gaussian_blur_fast_stream_quads_f32"
                             : "gaussian_blur_fast_stream_quads",
                         kGaussianBlurFastStreamQuadsF16, kGaussianBlurFastStreamQuadsF32, buffers,
                         push_bytes);
  }
  if (shader == kShaderMatrixStreamPairs) {
    return WorkingShader(working,
                         f32 ? "gaussian_blur_fast_stream_pairs_f32"
                             : "gaussian_blur_fast_stream_pairs",
                         kGaussianBlurFastStreamPairsF16, kGaussianBlurFastStreamPairsF32, buffers,
                         push_bytes);
  }
  return WorkingShader(working, f32 ? "gaussian_blur_fast_stream_f32" : "gaussian_blur_fast_stream",
                       kGaussianBlurFastStreamF16, kGaussianBlurFastStreamF32, buffers, push_bytes);
}

// The split build (SPLIT_TAPS, RGBA16F only): the partial sums at binding 3.
gpu::ShaderCode SplitStreamShaderCode(int shader, uint32_t push_bytes) {
  if (shader == kShaderMatrixStreamQuads) {
    return {"gaussian_blur_fast_stream_quads_split", kGaussianBlurFastStreamQuadsSplitF16, 4,
            push_bytes};
  }
  if (shader == kShaderMatrixStreamPairs) {
    return {"gaussian_blur_fast_stream_pairs_split", kGaussianBlurFastStreamPairsSplitF16, 4,
            push_bytes};
  }
  return {"gaussian_blur_fast_stream_split", kGaussianBlurFastStreamSplitF16, 4, push_bytes};
}

// The streamed matrix kernel (gaussian_blur_fast_stream.comp) keeps the J
// weight blocks in registers: in RGBA32F up to r = 112 (J = 15, 60
// registers a lane; RGBA16F up to 448 since, RowShapeBeyond112).
// H100, 1080p, µs H + V, with 4 subgroups per workgroup and one tile per
// step: r = 80 94.2, r = 96 110.1, r = 112 119.5 against the panel
// kernel's 115.8, 125.4, 157.5 (with today's shapes: 59, 72, 92).
constexpr int kStreamMaxRadius = kFastStreamMaxRadius;

// Both axes in one dispatch up to this radius: beyond it the halo (2R rows
// and columns around each tile) costs more than the second pass saves.
constexpr int kBothAxesMaxRadius = 8;
// Where both axes stream on the matrix units, only up to this one. H100,
// 1080p RGBA16F, µs, one dispatch against two streamed: r = 4 26.4 / 33.8,
// r = 5 29.7 / 32.0, r = 6 32.3 / 32.5, r = 7 36.1 / 32.0, r = 8 38.9 /
// 33.6.
constexpr int kBothAxesBeforeStreamRadius = 6;
// Tiles tried for it, in order (must match the shader: multiples of 8).
// Two shared arrays (staged pixels, blurred rows) while a tile of at least
// 32x32 fits that way; beyond, the rows go back over the staged pixels (the
// shader's kInPlace), which fits a larger tile in the same memory. H100
// at r = 8: RGBA16F 32x32 with two arrays 47.9 us, 64x32 in place 49.4,
// 32x32 in place 57.6; RGBA32F 32x16 with two arrays 141.3, 32x32 in place
// 108.5 (docs/PERFORMANCE.md). 64x32 in place is left out: where two
// arrays of 32x32 do not fit, it does not either (48 KB or 32 KB).
struct Tile {
  uint32_t width;
  uint32_t height;
  bool in_place;
};
constexpr Tile kBothAxesTiles[] = {
    {64, 32, false}, {32, 32, false}, {32, 32, true}, {32, 16, true}, {16, 16, true}};

// The staged tile with its halo, the rows blurred from it unless they go
// back over it, and the weights. Each array's rows hold one pixel more than
// they use (the shader's odd strides, against bank conflicts).
uint64_t BothAxesSharedBytes(Tile tile, uint32_t radius, uint32_t pixel_bytes) {
  const uint64_t in_h = tile.height + 2 * radius;
  const uint64_t rows = tile.in_place ? 1 : in_h * (tile.width + 1);
  return (in_h * (tile.width + 2 * radius + 1) + rows) * pixel_bytes + 4 * (uint64_t{radius} + 1);
}

// Runs of 8 row outputs the shader's 256 invocations take, at most 2 each
// (kMaxRowItems there).
bool BothAxesRowRunsFit(Tile tile, uint32_t radius) {
  return uint64_t{tile.height + 2 * radius} * (tile.width / 8) <= 2 * 256;
}

// Outputs per column run: the longest (up to 8) that still gives each of
// the 256 invocations a run, so that no lane idles in the column pass.
// H100, r = 8, 32x32 tiles (128 runs of 8 or 256 of 4): RGBA16F 41.0 ->
// 39.2 us, RGBA32F 51.5 -> 50.4 (docs/PERFORMANCE.md).
uint32_t BothAxesColumnRun(Tile tile) {
  uint32_t run = 8;
  while (run > 2 && tile.width * tile.height / run < 256) run /= 2;
  return run;
}

// The one-dispatch kernel for both axes, or nothing when the radius is
// larger, the blur is along one axis only, or no tile fits the device.
std::optional<StepKernel> PlanBothAxes(const BlurConfig& config, uint32_t pixel_bytes) {
  if (config.axes != "both" || config.radius > kBothAxesMaxRadius) return std::nullopt;
  const uint32_t radius = static_cast<uint32_t>(config.radius);
  const graph::Extent e = config.extent;
  for (const Tile tile : kBothAxesTiles) {
    const uint32_t gx = DivideRoundingUp(e.width, tile.width);
    const uint32_t gy = DivideRoundingUp(e.height, tile.height);
    if (BothAxesSharedBytes(tile, radius, pixel_bytes) > config.caps.max_compute_shared_memory_bytes ||
        !BothAxesRowRunsFit(tile, radius) ||
        config.caps.max_workgroup_invocations < 256 || gx > config.caps.max_workgroup_count[0] ||
        gy > config.caps.max_workgroup_count[1]) {
      continue;
    }
    StepKernel k;
    k.layout = {e.width, e.height, e.width, 1, e.width, 1};
    k.shader = kShaderBothAxes;
    k.spec.values = {256, radius, tile.width, tile.height, tile.in_place ? 1u : 0u,
                     BothAxesColumnRun(tile), config.border};
    k.groups_x = gx;
    k.groups_y = gy;
    k.details = absl::StrCat("both axes in one dispatch: ", tile.width, "x", tile.height,
                             " tiles staged with a halo of ", radius,
                             " in shared memory, rows then columns blurred there",
                             tile.in_place ? " (rows over the staged pixels)" : "");
    return k;
  }
  return std::nullopt;
}

// Bytes of the line paths' weights in shared memory (gaussian_blur_fast.comp's
// weight_pad): W(k) for |k| <= R + 2·kFastOutputs, three elements ahead of
// the first so that each block's weights start a vec4, in whole vec4s. H100,
// 1080p RGBA32F, µs H + V, read four at a time against one at a time (the
// same call, 2026-11-27, sixth session): r = 16 46.8 + 39.2 against
// 46.8 + 40.4, r = 64 83.5 + 82.7 against 84.0 + 83.7, r = 112 131.1 +
// 126.5 against 131.3 + 131.3. 16 outputs per invocation (130-195
// registers) lost: r = 64 82.9 + 104.7.
uint64_t LineWeightBytes(uint64_t radius) {
  return (2 * (radius + 2 * kFastOutputs) + 1 + 3 + 3) / 4 * 16;
}

// Row segments (the line kernel's path 0) of `capacity` pixels: the shader
// keeps them in kFastOutputs rows of this many pixels, 4 more than a
// multiple of 16 so that a subgroup's 32 consecutive pixels fall on
// separate banks (the shader's kStride says why).
uint32_t RowTileStride(uint32_t capacity) { return (capacity / kFastOutputs + 11) / 16 * 16 + 4; }

// A column tile's halo: 2R rows rounded up to whole runs of kFastOutputs.
uint32_t ColumnTileHaloRows(uint32_t radius) {
  return DivideRoundingUp(2 * radius, kFastOutputs) * kFastOutputs;
}

// Shared pixels of a column tile of `group` invocations: group / `columns`
// runs of kFastOutputs rows, the halo, one empty row after every
// kFastOutputs (the shader's Padded()), rounded up to whole rows of
// kFastOutputs pixels of the shader's array.
uint32_t ColumnTilePixels(uint32_t group, uint32_t columns, uint32_t radius) {
  const uint32_t rows = group / columns * kFastOutputs + ColumnTileHaloRows(radius);
  return DivideRoundingUp((rows + DivideRoundingUp(rows, kFastOutputs)) * columns, kFastOutputs) *
         kFastOutputs;
}

// SetFastLineGroups's sizes (benchmarks only).
absl::Mutex line_groups_mu;
std::optional<uint32_t> row_group_override ABSL_GUARDED_BY(line_groups_mu);
std::optional<uint32_t> column_group_override ABSL_GUARDED_BY(line_groups_mu);

std::optional<uint32_t> strided_rows_override ABSL_GUARDED_BY(line_groups_mu);

// Whether rows skip the segments for the strided path at this radius
// (SetFastStridedRowsFrom; the plan: only where no segment fits).
bool StridedRowsFrom(uint32_t radius) {
  absl::MutexLock lock(&line_groups_mu);
  return strided_rows_override && radius >= *strided_rows_override;
}

uint32_t RowGroup(uint32_t max_invocations) {
  absl::MutexLock lock(&line_groups_mu);
  return std::min(row_group_override.value_or(kFastRowGroup), max_invocations);
}

// Invocations of a column tile of lines n pixels long: kColumnTileGroup,
// or kColumnTileTallGroup for 16-byte pixels at radii up to
// kColumnTileTallMaxRadius, where its tile fits and the taller tiles stage
// fewer rows in all, ⌈n / span⌉ · (span + halo): fewer halos, and a short
// last tile weighs less (1080 rows, r = 64: 3 · 512 against 5 · 384).
// Equal counts keep the smaller group (512 rows: 2 tiles either way, the
// taller half empty).
uint32_t ColumnTileGroup(uint32_t n, uint32_t radius, uint32_t pixel_bytes,
                         uint32_t shared_pixels, uint32_t max_invocations) {
  const uint32_t columns = kColumnTileRowBytes / pixel_bytes;
  {
    absl::MutexLock lock(&line_groups_mu);
    if (column_group_override && *column_group_override <= max_invocations &&
        ColumnTilePixels(*column_group_override, columns, radius) <= shared_pixels) {
      return *column_group_override;
    }
  }
  const auto staged = [&](uint32_t group) {
    const uint64_t span = group / columns * kFastOutputs;
    return DivideRoundingUp(uint64_t{n}, span) * (span + ColumnTileHaloRows(radius));
  };
  const uint32_t tall = kColumnTileTallGroup;
  if (pixel_bytes == 16 && radius <= kColumnTileTallMaxRadius && tall <= max_invocations &&
      ColumnTilePixels(tall, columns, radius) <= shared_pixels &&
      staged(tall) < staged(kColumnTileGroup)) {
    return tall;
  }
  return kColumnTileGroup;
}

// Row segments (the line kernel's path 0) of RowGroup invocations, or
// nothing where the segment and its halo do not fit the shared memory.
// Halving the group to fit was measured against the strided rows and lost
// (H200, RGBA32F r = 1024, horizontal pass µs: 1080p 1,928 against 1,384;
// 4096² 14,539 against 9,777; the halo weighs 8 times the 256 px a
// segment of 32 blurs).
std::optional<StepKernel> PlanRowSegments(const BlurConfig& config, const LineLayout& layout,
                                          uint32_t shared_pixels) {
  const uint32_t radius = static_cast<uint32_t>(config.radius);
  const uint32_t group = RowGroup(config.caps.max_workgroup_invocations);
  const uint32_t need = group * kFastOutputs + 2 * radius;
  // Radii share pipelines (capacities in steps of 64 pixels, a multiple of
  // kFastOutputs as the shader needs), where the rows fit.
  const uint32_t least = DivideRoundingUp(need, kFastOutputs) * kFastOutputs;
  uint32_t capacity = (need + 63) / 64 * 64;
  while (capacity > least && kFastOutputs * RowTileStride(capacity) > shared_pixels) {
    capacity -= kFastOutputs;
  }
  if (kFastOutputs * RowTileStride(capacity) > shared_pixels) return std::nullopt;
  StepKernel k;
  k.layout = layout;
  k.spec.values = {group, radius, 0, capacity, kFastOutputs, 1, config.border};
  k.groups_x = DivideRoundingUp(layout.n, group * kFastOutputs);
  k.groups_y = layout.lines;
  k.details = absl::StrCat("row segments of ", group * kFastOutputs, " px + halo 2x", radius,
                           " in shared memory, ", kFastOutputs, " outputs per invocation");
  return k;
}

// Rows whose segments do not fit (the shader's path 3): 32 invocations a
// segment of 32·kFastOutputs pixels, lane l its outputs l + 32k, so that a
// subgroup's loads are 32 consecutive pixels; the weights in shared memory
// by chunks of kStridedRowChunk steps for each output. Path 1 (lines read
// directly, one per invocation) read 32 rows at once: H200, RGBA32F,
// horizontal pass µs, path 1 against these: 1080p r = 1024 2,350 / 1,384,
// r = 2048 4,646 / 2,675; 4096² r = 1024 34,449 / 9,777. Where segments
// fit they win (1080p r = 768 728 / 1,060; r = 64 71 / 169).
constexpr uint32_t kStridedRowChunk = 256;  // the shader's kStrideChunk
constexpr uint32_t kStridedRowGroup = 64;

std::optional<StepKernel> PlanStridedRows(const BlurConfig& config, const LineLayout& layout,
                                          uint32_t pixel_bytes) {
  const uint64_t shared_bytes =
      uint64_t{kFastOutputs} * kStridedRowChunk * 4 + uint64_t{kFastOutputs} * pixel_bytes;
  if (shared_bytes > config.caps.max_compute_shared_memory_bytes ||
      kStridedRowGroup > config.caps.max_workgroup_invocations) {
    return std::nullopt;
  }
  const uint32_t radius = static_cast<uint32_t>(config.radius);
  StepKernel k;
  k.layout = layout;
  k.spec.values = {kStridedRowGroup, radius, 3, 1, kFastOutputs, 1, config.border};
  k.groups_x = DivideRoundingUp(layout.n, kStridedRowGroup * kFastOutputs);
  k.groups_y = layout.lines;
  k.details = absl::StrCat("rows read directly, 32 invocations along ", 32 * kFastOutputs,
                           " px, ", kFastOutputs, " outputs each, 32 px apart");
  return k;
}

// The column-tile kernel, or nothing for rows, or when the tile does not fit
// beside the weights or its halo outweighs it (then columns are read
// straight from memory, the shader's path 1).
std::optional<StepKernel> PlanColumnTiles(const BlurConfig& config, const LineLayout& layout,
                                          uint32_t pixel_bytes, uint32_t shared_pixels) {
  if (layout.in_line_stride != 1) return std::nullopt;
  const uint32_t radius = static_cast<uint32_t>(config.radius);
  const uint32_t columns = kColumnTileRowBytes / pixel_bytes;
  // Whether tiles run at all is judged on the 64-invocation tile (the
  // radii measured against reading columns directly); the taller tile
  // only where that holds.
  const uint32_t least_span = kColumnTileGroup / columns * kFastOutputs;
  if (kColumnTileGroup > config.caps.max_workgroup_invocations ||
      ColumnTilePixels(kColumnTileGroup, columns, radius) > shared_pixels ||
      2 * radius > kColumnTileMaxHaloSpans * least_span) {
    return std::nullopt;
  }
  const uint32_t group = ColumnTileGroup(layout.n, radius, pixel_bytes, shared_pixels,
                                         config.caps.max_workgroup_invocations);
  const uint32_t span = group / columns * kFastOutputs;
  const uint32_t pixels = ColumnTilePixels(group, columns, radius);
  StepKernel k;
  k.layout = layout;
  k.spec.values = {group, radius, 2, pixels, kFastOutputs, columns, config.border};
  k.groups_x = DivideRoundingUp(layout.lines, columns);
  k.groups_y = DivideRoundingUp(layout.n, span);
  k.details = absl::StrCat("column tiles of ", columns, " x ", span, " px + halo 2x", radius,
                           " in shared memory, ", kFastOutputs, " outputs per invocation");
  return k;
}

uint32_t MatrixTapBlocks(uint32_t radius) { return 1 + (2 * radius + 15) / 16; }

uint64_t MatrixPanelBytes(uint32_t radius, MatrixShape shape) {
  const uint64_t rows = 16 * (shape.tiles + MatrixTapBlocks(radius) - 1);
  return rows * (16 * shape.warps + 8) * 2;
}

// Measured on the H100 at r = 64 (1080p, RGBA16F, µs H + V): 2 subgroups ×
// 8 tiles 44.0 + 45.6; 4 × 8 46.3 + 52.2; 4 × 4 52.5 + 45.8; 2 × 16
// 54.5 + 58.6; 1 × 16 60.4 + 57.1. Fewer subgroups only where the panel
// does not fit otherwise.
constexpr MatrixShape kMatrixShapes[] = {{2, 8}, {1, 8}};

// The weight blocks of the symmetric kernel w(0..R) (FastMatrixTapBlocks)
// as a constant blob.
std::vector<std::byte> MatrixTaps(const std::vector<double>& weights) {
  const int radius = static_cast<int>(weights.size()) - 1;
  std::vector<double> taps(2 * radius + 1);
  for (int d = -radius; d <= radius; ++d) taps[d + radius] = weights[std::abs(d)];
  const std::vector<uint16_t> halves = FastMatrixTapBlocks(taps);
  std::vector<std::byte> blob(halves.size() * 2);
  std::memcpy(blob.data(), halves.data(), blob.size());
  return blob;
}

// RGBA16F beyond r = 112 (J = 16-57), where the kernel once gave way to
// the panel kernel: the J weight blocks in registers grow to 228 of a
// lane's 255 at J = 57 (the driver reports 157 registers at r = 128, 222
// at 192 and 255 from 256 on: spilled beyond), and one subgroup's ring of
// J + N − 1 blocks fills 48 KB at J = 57 with four tiles a step. One
// subgroup a workgroup; 2 blocks ahead. H200, 1080p, µs of the pass, from
// one scan of 8 shapes (2026-11-29, fourteenth session,
// docs/blur/h200-stream-beyond-112-2026-11-29.csv), the runner-up in
// brackets; the panel kernel or line paths it replaces took 78.6 + 74.2
// at r = 128, 192.0 + 180.2 at 256, 370.9 + 365.8 at 384 and 392.5 + 415.5
// at 448. Two tiles a step up to J = 49, four at J = 50-57 (where two
// spill the most: r = 448 rows 341.8 with two, 251.7 with four).
FastStreamShape RowShapeBeyond112(uint32_t blocks) {
  if (blocks <= 17) return {24, 2, 2, 1, 48};  // r = 128: 34.1 (16:2:2 35.1)
  if (blocks <= 21) return {16, 2, 2, 1, 48};  // r = 160: 42.2 (24:2:2 44.3)
  if (blocks <= 49) return {24, 2, 2, 1, 48};  // r = 192 51.2, 224 55.6, 256 75.5,
                                               // 320 88.1, 384 183.6
  return {24, 4, 4, 1, 48};                    // r = 448: 251.7 (16:2:1 304.9)
}
FastStreamShape ColumnShapeBeyond112(uint32_t blocks) {
  if (blocks <= 17) return {24, 2, 2, 1, 48};  // r = 128: 38.9 (16:2:2:2 40.7)
  if (blocks <= 21) return {16, 2, 2, 1, 48};  // r = 160: 46.3 (40:2:2 47.9)
  if (blocks <= 29) return {40, 2, 2, 1, 48};  // r = 192 54.3 (24:4:4 55.6),
                                               // 224 59.7 (16:2:2:2 60.9)
  if (blocks <= 41) return {24, 2, 2, 1, 48};  // r = 256 78.6, 320 90.6
  if (blocks <= 49) return {40, 2, 2, 1, 48};  // r = 384: 175.4 (24:2:2 187.7)
  return {24, 4, 4, 1, 48};                    // r = 448: 246.0 (40:2:1 297.0)
}

// The streamed kernel's shape per J = 1 + ⌈2R/16⌉ weight blocks, from
// scans of every shape on the H100 (µs H + V, RGBA16F). The table was first
// chosen at 1080p (docs/blur/h100-stream-shapes.csv, sizes 512² to 4K, each
// row's plan column naming its shape; an H200's scan,
// docs/blur/h200-stream-shapes.csv, found the same winners at r = 48-80).
// Once the border mode became a specialization constant (the unrolled loop
// shrank from 56 to 12 KB of code at r = 64), a second scan of 25 shapes
// (docs/blur/h100-stream-shapes-small-code-1080p.csv and -4k.csv) moved
// J = 5, 6 and 10-11 and chose shapes of their own for large images (since
// dropped: see the note below StreamShape). What the scans say:
// - Segment length: each segment reads J − 1 blocks of halo, so longer
//   segments read less, but give the GPU fewer subgroups to hide latency
//   with; the best length moves with J (a 1080p row pass has 270 groups
//   of 4 lines, 120 tiles long) and is not monotonic, so it is a table.
// - One subgroup per workgroup mostly: each subgroup walks its segment
//   alone anyway, and single-subgroup workgroups spread evenly over the
//   multiprocessors. r = 64 with 24 tiles, two per step: 4 subgroups 72.7,
//   1 subgroup 46.0; 4K 222.7 against 175.9. But two won at J = 5-8 at
//   1080p (below), where two rings still leave 6-8 workgroups a
//   multiprocessor.
// - Blocks loaded ahead: 4 while J is small; 2 beyond at 1080p (r = 64,
//   24 tiles, two per step: 44.8 against 44.0; with the old 56 KB loop 57
//   against 47).
// - Tiles per step: mostly two. At 1080p, with the small code: r = 32
//   (J = 5) 20:2:2 37.1 against the old 24:4:4 42.0; r = 40 16:4:4 40.5
//   against 16:2:1 43.0; r = 80 20:2:2 50.4 against 24:2:1 56.6.
// - Rows and columns apart (a third scan, 2026-11-27: 34 shapes at 1080p,
//   two accumulator chains among them, docs/blur/h100-stream-shapes-axes-1080p.csv):
//   a row pass gains from one tile per step at J = 2 and 4, four at J = 7
//   and shorter segments at J = 10-11; a column pass from shorter segments
//   at J = 14-15 and two accumulator chains per tile at J = 9 (each tile
//   waits on a chain of 5 dependent products instead of 9; 116 registers
//   instead of 96). The 2026-11-26 scan had found the same winners per
//   axis. Two chains gained nothing for rows (r = 64: 21.0 both) nor for
//   columns at other J (r = 16 +4.6, 32 +1.5, 40 +3.0, 48 +0.4, 56 +0.3,
//   80 +4.0, 96 +1.6, 112 +2.6 µs).
// Against the first fixed shape (4 subgroups, at most 24 tiles, two per
// step up to J = 13): r = 24 47.6 -> 34.3 (37.4 with the small code), r = 64
// 72.7 -> 46.0 (44.0), r = 80 82.9 -> 50.4, r = 96 89.9 -> 55.8, r = 112
// 120.3 -> 64.5. kAhead is a multiple of the tiles per step: that kernel
// consumes blocks N at a time.
// RGBA32F (the kernel's WORKING_F32 build: pixels twice the bytes, each
// block's band found on the way into the ring) was first scanned with both
// axes alike (docs/blur/h100-stream-shapes-rgba32f.csv), then per axis
// (2026-11-27, 17 shapes at 1080p with fp16 bands allowed,
// docs/blur/h100-stream-shapes-rgba32f-axes-1080p.csv, µs of the pass
// against the shape both axes shared before where it differs).
FastStreamShape StreamShape(uint32_t blocks, bool rgba32f, bool columns) {
  if (rgba32f && columns) {
    if (blocks <= 3) return {20, 2, 2, 1, 0, 2};    // r = 16: 34.1 (12:4:2 35.3)
    if (blocks == 4) return {16, 2, 2, 1};          // r = 24: 34.6
    if (blocks <= 7) return {20, 2, 1, 1, 48};      // r = 32 37.4 (39.9), 40 38.4 (45.8),
                                                    // 48 39.4 (40.7)
    if (blocks <= 9) return {16, 2, 2, 1, 48};      // r = 64: 45.3 (24:2:2 51.7)
    if (blocks <= 11) return {34, 2, 2, 1, 48};     // r = 80: 44.3 (24:2:1 60.2)
    if (blocks <= 13) return {16, 2, 2, 1, 48};     // r = 96: 56.8 (24:2:2 59.1)
    return {24, 2, 2, 1, 48};                       // r = 112: 60.2
  }
  if (rgba32f) {
    if (blocks <= 3) return {16, 2, 2, 1};          // r = 16: 29.7 (12:4:2 32.5)
    if (blocks == 4) return {16, 4, 4, 1};          // r = 24: 31.5 (16:2:2 34.1)
    if (blocks == 5) return {20, 2, 2, 1};          // r = 32: 33.5 (24:2:2 36.9)
    if (blocks <= 7) return {12, 4, 2, 1, 48};      // r = 40 36.6 (16:2:1 46.3), 48 36.4 (37.6)
    if (blocks <= 9) return {16, 2, 2, 1, 48};      // r = 64: 43.0 (24:2:2 43.8)
    if (blocks <= 11) return {24, 4, 4, 1, 48};     // r = 80: 44.3 (24:2:1 47.1)
    if (blocks <= 13) return {40, 2, 2, 1, 48};     // r = 96: 47.1 (24:2:2 54.0)
    return {24, 2, 2, 1, 48};                       // r = 112: 54.5
  }
  // µs of the pass, from the 2026-11-27 scan (H for rows, V for columns),
  // against the shape both axes shared before where it differs. Two
  // subgroups a workgroup (W = 2) from a later scan that day
  // (docs/blur/h100-stream-shapes-w2-1080p.csv): they won at J = 5-8, by
  // 1-3.6 µs a pass, against the one-subgroup shape in brackets; at J = 9
  // and beyond, where a workgroup's two rings leave fewer workgroups a
  // multiprocessor (5 at J = 9, 18 KB each), not. The blocks in registers
  // (the last field; a later call that day, with the temporary tiled up to
  // J = 4, docs/blur/h100-register-ring-2026-11-27.txt): each block loaded
  // from shared memory once instead of once a step, for 4 registers a block
  // and the register moves of each step; won by 0.5-1.6 µs where marked
  // (µs with it, then without; the row shape at r = 40 and the column
  // shape at r = 24 through the benchmark's override), lost elsewhere (rows
  // at J = 3 14.8 -> 19.2 and J = 4 16.9 -> 17.4, columns at J = 7-8
  // +1.0-1.3, both axes from J = 9: r = 64 21.2 + 22.0 -> 23.3 + 23.3,
  // r = 112 +10 and +4). Those losses were with one subgroup a workgroup.
  // The blocks in registers together with two subgroups and, from J = 6,
  // four tiles per step (a later scan, 2026-11-27, fifth session,
  // docs/blur/h100-register-ring-w2-2026-11-27.txt) won on both axes from
  // J = 6 to 11 by 0.5-3.8 µs a pass, though four tiles hold 124-166
  // registers: the µs in brackets are the shape before (two chains where
  // marked). One tile per step, shorter segments or two chains lost with
  // them, and so did J >= 12 (r = 96: 31.7 + 36.6 against 25.6 + 28.4).
  if (columns) {
    if (blocks <= 3) return {12, 4, 2, 1, 0, 1, 1};  // r = 8 13.6 (14.8), 16 14.1 (14.8)
    if (blocks == 4) return {16, 2, 2, 1, 0, 1, 1};  // r = 24: 14.6 (15.4)
    if (blocks == 5) return {24, 2, 2, 2, 0, 1, 1};  // r = 32: 17.2-17.7 (18.4; 20:2:2 19.5)
    if (blocks == 6) return {24, 4, 4, 2, 0, 1, 1};  // r = 40: 17.7 (19.2-19.5, two chains)
    if (blocks == 7) return {32, 4, 4, 2, 0, 1, 1};  // r = 48: 19.2 (19.7-20.0)
    if (blocks <= 9) return {24, 4, 4, 2, 0, 1, 1};  // r = 56: 20.0 (22.5-22.8),
                                                     // 64: 20.7 (22.0, two chains)
    if (blocks <= 11) return {20, 2, 2, 2, 0, 1, 1}; // r = 80: 22.0 (23.8-24.1)
    if (blocks <= 13) return {34, 2, 2, 1, 48};     // r = 96: 28.2 (18:2:2 30.7)
    if (blocks <= 15) return {16, 2, 2, 1, 48};     // r = 112: 34.3 (20:2:2 36.9)
    return ColumnShapeBeyond112(blocks);
  }
  if (blocks <= 2) return {12, 4, 1, 1};            // r = 8: 13.1 (12:4:2 14.6)
  if (blocks <= 3) return {12, 4, 2, 1};            // r = 16: 13.6
  if (blocks == 4) return {16, 4, 1, 1};            // r = 24: 16.1 (16:2:2 17.9)
  if (blocks <= 6) return {20, 2, 2, 2, 0, 1, 1};   // r = 32 14.6 (15.9; 20:2:2 17.9),
                                                    // 40 15.4 (16.9)
  if (blocks == 7) return {24, 4, 4, 2, 0, 1, 1};   // r = 48: 15.4 (16.1; 16:4:4 17.9)
  if (blocks == 8) return {24, 2, 2, 2, 0, 1, 1};   // r = 56: 16.6-16.9 (18.4; 24:4:4:2 16.6)
  if (blocks <= 11) return {24, 4, 4, 2, 0, 1, 1};  // r = 64: 17.2-17.7 (21.0),
                                                    // 80: 19.5 (22.8; 16:2:2 22.5)
  if (blocks <= 13) return {18, 2, 2, 1, 48};       // r = 96: 25.6
  if (blocks <= 15) return {40, 2, 2, 1, 48};       // r = 112: 25.9 (20:2:2 27.4)
  return RowShapeBeyond112(blocks);
}
// Large images once had shapes of their own (segments of 12-32 tiles, one
// subgroup a workgroup, four tiles a step at J = 7-9), measured at 4K
// before two subgroups and the blocks in registers existed there. Against
// StreamShape's shapes since (H100 RGBA16F, µs H + V, 2026-11-27, sixth
// session, docs/blur/h100-large-images-2026-11-27.txt; StreamShape's row
// shape timed for H, its column shape for V where they differ) they lost
// at every J and size measured: 2048² r = 32 77.8 against 70.9, r = 40
// 86.8 against 72.4, r = 48 79.9 against 71.2, r = 64 87.0 against 75.8;
// 4K r = 32 140.0 against 127.2, r = 40 164.1 against 127.7, r = 48 ~147
// (a noisy run's 10th percentile) against 135.4, r = 64 143.1 against
// 141.8. So every image takes StreamShape's shapes; large ones only grow
// their segments (below).

// Each subgroup walks its segment alone, so the kernel needs many of them to
// hide latency: segments shrink (down to kStreamMinTiles, the panel
// kernel's 8 tiles per subgroup and its halo share) until there are
// kStreamMinSubgroups, else the panel kernel runs. 1024 is ~8 per
// multiprocessor of an H100 (132); there, 512x512 RGBA16F with 1 or 2
// segments of up to 32 tiles (128 to 256 subgroups) took r = 16 26.1,
// r = 32 45.8, r = 64 56.1 us against the panel's 19.5, 20.5, 24.1.
// From J = 10 (r > 64) a segment's halo (J − 1 blocks) costs more than the
// latency a few subgroups more would hide, so there the minimum is
// kStreamMinSubgroupsWideHalo. H100, µs of the pass, 1080p (2026-11-27,
// docs/blur/h100-stream-shapes-long-1080p.csv, -rgba32f-axes-1080p.csv
// and h100-rgba32f-axes-2026-11-27.txt): RGBA16F rows at r = 112 in 3
// segments (810 subgroups) 25.9 against 27.4, columns at r = 80 in 2 (960)
// 24.1 against 25.9, at r = 96 28.2 against 30.7; RGBA32F columns at r = 80 44.3 against 60.2;
// 1024x1024 RGBA16F r = 112 17.2 + 19.7 against 19.5 + 22.8. At r = 64 the
// same minimum lost: 1024x1024 16.6 + 15.1 against 14.1 + 14.1, RGBA16F
// 1080p columns 22.3 against 22.0.
constexpr uint32_t kStreamMinTiles = 8;
constexpr uint32_t kStreamMinSubgroups = 1024;
constexpr uint32_t kStreamMinSubgroupsWideHalo = 768;
constexpr uint32_t kStreamWideHaloBlocks = 10;
// Large images: the table's segment lengths were chosen at 1080p
// (1,350–1,920 subgroups a pass); where they would give more than
// kStreamManySubgroups, segments grow (up to the shape's long_tiles) until
// they do not, or can grow no more: less halo read, and the GPU still has
// plenty of subgroups. H100 RGBA16F, 4K, µs H + V, the table's lengths
// against at most 48 tiles (before the small code): r = 96 262.7 / 235.3;
// 8K r = 64 649.5 / 625.9. Where J ≤ 6 longer segments did not pay (4K
// r = 16, 32: level or slower), so those shapes have no long_tiles.
constexpr uint32_t kStreamManySubgroups = 2800;

// Whether the kernel keeps the step's blocks in registers
// (FastStreamShape::register_ring; the RGBA16F build only).
bool RegisterRing(const FastStreamShape& shape, bool f32) {
  return !f32 && shape.register_ring == 1;
}

// One wave. NVIDIA's driver gives these kernels 100 KB of shared memory a
// multiprocessor (its carve-out; the rest stays L1 cache), so at most
// ⌊100 KB / a subgroup's bytes⌋ subgroups share one; registers allow 16
// where a kernel holds ≤ 128 a lane (most shapes). A pass with a few subgroups
// more than the multiprocessors take at once runs those in a second wave,
// a whole walk long. H100 (132 multiprocessors), RGBA16F, µs of the row
// pass by the image's height (docs/blur/h100-one-wave-2026-11-27.txt):
// r = 64 (9,216 B, 11 a multiprocessor, 1,452 in all) 21.5 with 1,450
// subgroups, 29.2 with 1,460; r = 32 (6,144 B, 16, 2,112) 21.8 with
// 2,112, 27.4 with 2,124. Where one segment fewer makes one wave (and
// enough subgroups), the pass takes it: 1920x1168 at r = 64, rows 29.4 ->
// 25.3 (5 -> 4 segments), columns 28.2 -> 23.0 (4 -> 3).
// The four-tile shapes with the blocks in registers hold more than 128
// registers a lane, so there registers bind before shared memory: the
// driver's pipeline statistics (H100, 2026-11-27) give 124 at J = 6,
// 132-142 at J = 7-8 and 150-166 at J = 9-11, allocated in eights, so 16,
// 14 and 12 subgroups a multiprocessor in workgroups of two. Counting
// shared memory alone (16) cost 2560x1440 at r = 64 a segment of its
// column pass into a second wave after all: 43.8 µs against 40.2 with 4
// segments; and counting registers, 1920x1200 at r = 64 takes one column
// segment fewer (3, 1,440 subgroups): 23.3 µs against 30.0 with 4
// (docs/blur/h100-large-images-2026-11-27.txt).
constexpr uint64_t kStreamSharedPerMultiprocessor = 100 << 10;
constexpr uint64_t kStreamRegisterBoundPerMultiprocessor = 16;
uint64_t StreamRegisterBound(const FastStreamShape& shape, uint32_t blocks, bool f32) {
  if (!RegisterRing(shape, f32) || shape.tiles_per_step != 4) {
    return kStreamRegisterBoundPerMultiprocessor;
  }
  return blocks <= 6 ? 16 : blocks <= 8 ? 14 : 12;
}
// Subgroups that `caps` runs at once in workgroups of `warps` subgroups and
// `bytes` of shared memory, at most `register_bound` a multiprocessor, or 0
// where that is not known: no multiprocessor count, or so little shared
// memory that registers decide at the bound of kernels that hold up to 128
// (where the plan does not know the count).
uint64_t StreamOneWave(const gpu::DeviceCaps& caps, uint64_t bytes, uint32_t warps,
                       uint64_t register_bound) {
  const uint64_t by_shared = kStreamSharedPerMultiprocessor / bytes * warps;
  if (caps.multiprocessors == 0 || (by_shared > kStreamRegisterBoundPerMultiprocessor &&
                                    register_bound == kStreamRegisterBoundPerMultiprocessor)) {
    return 0;
  }
  return uint64_t{caps.multiprocessors} * std::min(by_shared, register_bound / warps * warps);
}

// SetFastStreamShapeOverride's shape (benchmarks only).
absl::Mutex shape_override_mu;
std::optional<FastStreamShape> shape_override ABSL_GUARDED_BY(shape_override_mu);

std::optional<FastStreamShape> StreamShapeOverride() {
  absl::MutexLock lock(&shape_override_mu);
  return shape_override;
}

// SetFastStreamMinSubgroups's minimum (benchmarks only).
std::optional<uint32_t> min_subgroups_override ABSL_GUARDED_BY(shape_override_mu);

uint64_t StreamMinSubgroups(uint32_t blocks) {
  absl::MutexLock lock(&shape_override_mu);
  return min_subgroups_override.value_or(
      blocks >= kStreamWideHaloBlocks ? kStreamMinSubgroupsWideHalo : kStreamMinSubgroups);
}

uint64_t StreamRingBlocks(uint32_t radius, const FastStreamShape& shape) {
  return MatrixTapBlocks(radius) + shape.tiles_per_step - 1;
}
uint64_t StreamSharedSlots(uint32_t radius, const FastStreamShape& shape, bool f32) {
  return RegisterRing(shape, f32) ? shape.tiles_per_step : StreamRingBlocks(radius, shape);
}
// Shared memory of the streamed kernel: per subgroup a ring of J + N − 1
// blocks of 16 rows of 6 uvec2 (N of them where the blocks wait in
// registers) and N scratch blocks for N tiles per step, 16 rows of 6 uvec2
// (RGBA16F) or 10 (RGBA32F, and the split build's fp32 sums).
uint64_t StreamSharedBytes(uint32_t radius, const FastStreamShape& shape, bool f32,
                           bool split = false) {
  const uint64_t ring = StreamSharedSlots(radius, shape, f32);
  const uint64_t per_warp =
      (ring * 16 * 6 + shape.tiles_per_step * 16 * (f32 || split ? 10 : 6)) * 8;
  return shape.warps * per_warp;
}
const char* TilesPerStepWords(uint32_t n) {
  return n == 1 ? "one tile" : n == 2 ? "two tiles" : "four tiles";
}

// The temporary between the streamed row and column passes
// (gaussian_blur_fast_stream.comp's kTiledTemp, specialization constant
// 8): as lines, or in tiles of 4 x 16 pixels, where a column pass's block
// of 16 rows of 4 lines is 512 contiguous bytes instead of 16 pieces of 32;
// the row pass then stores 4 lines x 8 pixels an instruction where it
// computes one tile per step. H100, 1080p RGBA16F, µs H + V
// (docs/PERFORMANCE.md, "`fast`: the temporary in tiles"): the column pass
// gains 2-4 µs up to J = 4 (r = 24), the row pass gives 0.5-1.5 back; from J = 5
// the column pass gained nothing or lost (r = 32 18.2 -> 19.7, r = 64 21.8
// -> 22.5, r = 80 24.1 -> 31.0), so the temporary stays in lines there.
// Except where the taps split (r >= 384): each part's column dispatch reads
// the temporary again, so its 512-byte tiles pay once per part while the
// row pass's tiled stores cost once. H200, µs H + V, lines -> tiles, one
// sweep each (docs/blur/h200-tiled-temp-2026-11-29.csv): 1080p r = 449
// 184.8 + 193.8 -> 188.4 + 182.5, r = 1024 427.8 + 428.0 -> 433.7 + 420.9;
// 4K r = 449 597.2 + 772.1 -> 611.1 + 704.3 (V/H 1.29 -> 1.15), r = 1024
// 1,396.0 + 1,774.6 -> 1,417.5 + 1,739.3. One pass (r = 32-300) lost at
// both sizes (4K r = 112 221.9 -> 271.4).
constexpr uint32_t kTempLines = 0;
constexpr uint32_t kTempTiled = 1;
constexpr uint32_t kTempTiledWideStores = 2;
constexpr uint32_t kTiledTempMaxBlocks = 4;
constexpr size_t kStreamSpecTemp = 8;  // the streamed kernel's spec value for the temporary

// SetFastTiledTempMaxBlocks's bound (benchmarks only).
std::optional<uint32_t> tiled_temp_override ABSL_GUARDED_BY(shape_override_mu);

std::optional<uint32_t> TiledTempOverride() {
  absl::MutexLock lock(&shape_override_mu);
  return tiled_temp_override;
}

// Where both passes stream in RGBA16F with J <= kTiledTempMaxBlocks, or
// both split their taps, the temporary in tiles (kTempTiled), padded to
// whole tiles: 4 pixels across, 16 down. While the benchmark's bound is
// set, every plan follows it alone (J of the whole kernel).
void TileTheTemporary(const BlurConfig& config, graph::PassPlan& plan, BlurPrepared& prepared) {
  if (config.working != graph::PixelFormat::kRgba16F || prepared.steps.size() != 2) return;
  StepKernel& rows = prepared.steps[0];
  StepKernel& columns = prepared.steps[1];
  if (!IsStreamShader(rows.shader) || !IsStreamShader(columns.shader)) return;
  const uint32_t blocks = MatrixTapBlocks(static_cast<uint32_t>(config.radius));
  const bool split = !rows.tap_shifts.empty() && !columns.tap_shifts.empty();
  const std::optional<uint32_t> bound = TiledTempOverride();
  if (bound ? blocks > *bound : blocks > kTiledTempMaxBlocks && !split) return;
  plan.temp_extents = {{DivideRoundingUp(config.extent.width, 4) * 4,
                        DivideRoundingUp(config.extent.height, 16) * 16}};
  const bool wide_stores = rows.shader == kShaderMatrixStream;  // one tile per step
  rows.spec.values[kStreamSpecTemp] = wide_stores ? kTempTiledWideStores : kTempTiled;
  columns.spec.values[kStreamSpecTemp] = kTempTiled;
  rows.details += "; stores the temporary in tiles of 4 x 16 px";
  if (wide_stores) rows.details += ", 4 lines x 8 px an instruction";
  columns.details += "; loads the temporary in tiles of 4 x 16 px";
}

// The parts of split taps (J = 16-21 with parts of at most 321 taps) on
// both axes: 16 tiles a segment, two a step, 2 blocks ahead, one subgroup
// a workgroup, and no longer segments on large images. H200, µs H + V, 9
// shapes (docs/blur/h200-split-shapes-2026-11-29.csv): at 1080p r = 449-1024
// within 0.1% of the best (the table's shapes for J = 17-21 measured the
// same, 1% slower at most); at 4K the table's long segments lost: r = 512
// 1,763 against 1,543, r = 1024 3,555 against 3,186.
constexpr FastStreamShape kSplitPartShape = {16, 2, 2, 1, 0};

// The streamed kernel for one axis, or nothing beyond its radius or shared
// memory, or where the image gives too few subgroups. `split`: the build
// for one part of split taps (config.radius the part's half width).
std::optional<StepKernel> PlanMatrixStream(const BlurConfig& config, const LineLayout& layout,
                                           bool split = false) {
  const uint32_t radius = static_cast<uint32_t>(config.radius);
  const bool f32 = config.working == graph::PixelFormat::kRgba32F;
  if (config.radius > (f32 ? kStreamMaxRadius : kFastStreamMaxRadiusF16)) return std::nullopt;
  const std::optional<FastStreamShape> override_shape = StreamShapeOverride();
  const uint32_t blocks = MatrixTapBlocks(radius);
  const bool lines_adjacent = layout.in_line_stride == 1;
  FastStreamShape shape = override_shape.value_or(
      split ? kSplitPartShape : StreamShape(blocks, f32, lines_adjacent));
  const auto fits = [&](const FastStreamShape& s) {
    return StreamSharedBytes(radius, s, f32, split) <=
               config.caps.max_compute_shared_memory_bytes &&
           s.warps * 32 <= config.caps.max_workgroup_invocations;
  };
  if (!fits(shape)) return std::nullopt;
  const uint32_t tiles16 = DivideRoundingUp(layout.n, 16);
  const uint64_t line_groups = DivideRoundingUp(layout.lines, 4);
  const uint64_t min_subgroups = StreamMinSubgroups(blocks);
  uint32_t segments = DivideRoundingUp(tiles16, shape.max_tiles);
  while (line_groups * segments < min_subgroups &&
         DivideRoundingUp(tiles16, segments + 1) >= kStreamMinTiles) {
    ++segments;
  }
  if (line_groups * segments < min_subgroups) return std::nullopt;
  while (segments > 1 && line_groups * segments > kStreamManySubgroups &&
         DivideRoundingUp(tiles16, segments - 1) <= shape.long_tiles) {
    --segments;
  }
  if (const uint64_t wave = StreamOneWave(config.caps, StreamSharedBytes(radius, shape, f32, split),
                                          shape.warps, StreamRegisterBound(shape, blocks, f32));
      !override_shape && wave > 0 && line_groups * segments > wave &&
      line_groups * (segments - 1) <= wave &&
      line_groups * (segments - 1) >= min_subgroups) {
    --segments;  // one wave (StreamOneWave)
  }
  const uint32_t tiles = DivideRoundingUp(tiles16, segments);
  StepKernel k;
  k.layout = layout;
  k.shader = shape.tiles_per_step == 4   ? kShaderMatrixStreamQuads
             : shape.tiles_per_step == 2 ? kShaderMatrixStreamPairs
                                         : kShaderMatrixStream;
  // Column passes number the line groups first, so that neighbouring
  // workgroups read neighbouring 32-byte pieces of the same rows (4 of them
  // a 128-byte line). H100 RGBA16F, vertical pass µs, segments first / line
  // groups first: 1080p r = 8 17.4 / 16.9, r = 64 24.8 / 24.6; 4K r = 8
  // 78.9 / 68.4, r = 48 85.3 / 78.6, r = 64 99.3 / 96.5. Row passes gained
  // nothing from it (1080p within 1%, 4K r = 8 63.7 / 64.8).
  const uint32_t line_groups_first = lines_adjacent ? 1 : 0;
  const uint32_t chains = lines_adjacent ? shape.column_chains : 1;
  const bool in_registers = RegisterRing(shape, f32);
  k.spec.values = {shape.warps * 32, radius, lines_adjacent ? 1u : 0u, shape.warps, shape.ahead,
                   line_groups_first, config.border, chains, kTempLines, in_registers ? 1u : 0u};
  k.segment = tiles;  // in 16-output tiles
  k.groups_x = DivideRoundingUp(layout.n, 16 * tiles);
  k.groups_y = DivideRoundingUp(layout.lines, 4 * shape.warps);
  if (line_groups_first) std::swap(k.groups_x, k.groups_y);
  if (k.groups_x > config.caps.max_workgroup_count[0] ||
      k.groups_y > config.caps.max_workgroup_count[1]) {
    return std::nullopt;  // lines beyond what one dispatch numbers: the other paths
  }
  k.details = absl::StrCat(
      "matrix units, streamed: 16x16x16 fp16 products (fp16 weights in registers",
      f32 ? "; fp32 pixels into fp16 scaled by their magnitude band, steps across bands in fp32"
          : "",
      "), fp32 accumulation; each subgroup walks 4 lines along ", 16 * tiles, " outputs, ",
      TilesPerStepWords(shape.tiles_per_step), " per step, with a ring of ",
      StreamRingBlocks(radius, shape), " blocks, ", shape.ahead,
      " loaded ahead; ", 4 * shape.warps, " lines per workgroup, ",
      StreamSharedBytes(radius, shape, f32, split), " bytes",
      chains == 2 ? "; two accumulator chains per tile" : "",
      in_registers ? "; blocks in registers" : "");
  return k;
}

// Whether both axes of the image would stream on the matrix units.
bool BothAxesStream(const BlurConfig& config) {
  if (!config.caps.f16_matrix_product_16 || config.working != graph::PixelFormat::kRgba16F) {
    return false;
  }
  const uint32_t w = config.extent.width, h = config.extent.height;
  return PlanMatrixStream(config, {w, h, w, 1, w, 1}) &&
         PlanMatrixStream(config, {h, w, 1, w, 1, w});
}

// The most an axis of the streamed kernel is off by, as a fraction of full
// scale: its weights are the fp16 roundings alone.
double HalfWeightsError(const std::vector<double>& weights) {
  double error = 0;
  for (size_t k = 0; k < weights.size(); ++k) {
    error += (k == 0 ? 1 : 2) * std::abs(HalfToDouble(DoubleToHalf(weights[k])) - weights[k]);
  }
  return error;
}

// The most an axis of the streamed kernel in RGBA32F is off by, as a
// fraction of the largest magnitude in the blocks (16 pixels of its 4
// lines) that the output's window reads: the fp16 weights' error, and each
// value rounded to fp16 after its block's scaling (at most 2^-11 of its
// block's largest: a block's scale follows its largest value, which may lie
// up to 15 pixels beyond the window, so values of the window far below it
// keep fewer bits; FastScaledHalf.TheBoundHoldsAgainstTheBlocksRead models
// it) under the rounded weights.
double ScaledHalfAxisError(const std::vector<double>& weights) {
  double sum = 0;
  for (size_t k = 0; k < weights.size(); ++k) {
    sum += (k == 0 ? 1 : 2) * std::abs(HalfToDouble(DoubleToHalf(weights[k])));
  }
  return HalfWeightsError(weights) + std::ldexp(sum, -11);
}

// Whether the request allows `fast` RGBA32F's fp16 path: an approximation
// (min_psnr_db > 0) no better than the PSNR its bound states for the
// request's axes. Never by default: RGBA32F is asked for fp32 accuracy,
// which the line paths keep.
bool AllowsScaledHalf(const BlurConfig& config) {
  if (!(config.min_psnr_db > 0)) return false;
  const int axes = config.axes == "both" ? 2 : 1;
  const double error = axes * ScaledHalfAxisError(GaussianWeights(config.radius, config.sigma));
  return -20 * std::log10(error) >= config.min_psnr_db;
}

// SetFastSplitTaps's policy (benchmarks only).
std::optional<FastSplitPolicy> split_override ABSL_GUARDED_BY(shape_override_mu);

FastSplitPolicy SplitPolicy() {
  absl::MutexLock lock(&shape_override_mu);
  return split_override.value_or(kFastSplitPolicy);
}

// The streamed kernel for one axis with the taps in `parts` (SplitFastTaps),
// one dispatch per part, or nothing where one part would do or a part's
// pass cannot stream (its radius, the shared memory, too few subgroups).
std::optional<StepKernel> PlanSplitStream(const BlurConfig& config, const LineLayout& layout,
                                          const std::vector<FastTapPart>& parts) {
  if (parts.size() < 2) return std::nullopt;
  BlurConfig part = config;
  part.radius = static_cast<int>(parts[0].taps.size() / 2);
  std::optional<StepKernel> k = PlanMatrixStream(part, layout, /*split=*/true);
  if (!k) return std::nullopt;
  for (const FastTapPart& p : parts) k->tap_shifts.push_back(p.shift);
  k->details = absl::StrCat("taps in ", parts.size(), " parts of ", parts[0].taps.size(),
                            " (one dispatch each, their sums meeting in an fp32 image); ",
                            k->details);
  return k;
}

// The matrix path's kernel for one axis, or nothing when the device, the
// format or the shared memory (the panel grows with the radius) rules it out.
// RGBA32F streams where the request allows its approximation (else, and
// beyond the stream's radii, the line paths: the panel kernel reads fp16).
// `split_parts`: the taps in parts where the policy splits them (else empty).
std::optional<StepKernel> PlanMatrixStep(const BlurConfig& config, const LineLayout& layout,
                                         const std::vector<FastTapPart>& split_parts) {
  if (!config.caps.f16_matrix_product_16) return std::nullopt;
  if (config.working == graph::PixelFormat::kRgba32F) {
    if (config.radius > kStreamMaxRadius || !AllowsScaledHalf(config)) return std::nullopt;
    return PlanMatrixStream(config, layout);
  }
  if (config.working != graph::PixelFormat::kRgba16F) return std::nullopt;
  if (std::optional<StepKernel> k = PlanSplitStream(config, layout, split_parts)) return k;
  if (std::optional<StepKernel> k = PlanMatrixStream(config, layout)) return k;
  const uint32_t radius = static_cast<uint32_t>(config.radius);
  for (const MatrixShape shape : kMatrixShapes) {
    const uint32_t warps = shape.warps;
    if (MatrixPanelBytes(radius, shape) > config.caps.max_compute_shared_memory_bytes ||
        warps * 32 > config.caps.max_workgroup_invocations) {
      continue;
    }
    StepKernel k;
    k.layout = layout;
    k.shader = kShaderMatrix;
    const uint32_t lines_adjacent = layout.in_line_stride == 1 ? 1 : 0;
    k.spec.values = {warps * 32, radius, lines_adjacent, warps, shape.tiles, config.border};
    k.groups_x = DivideRoundingUp(layout.n, 16 * shape.tiles);
    k.groups_y = DivideRoundingUp(layout.lines, 4 * warps);
    k.details = absl::StrCat("matrix units: 16x16x16 fp16 products (weights hi + lo), fp32 "
                             "accumulation; ", 16 * shape.tiles, " outputs x ", 4 * warps,
                             " lines per workgroup, panel ", MatrixPanelBytes(radius, shape),
                             " bytes");
    return k;
  }
  return std::nullopt;
}

// Must match the push_constant block of gaussian_blur_fast.comp.
struct FastPush {
  uint32_t n;
  uint32_t lines;
  uint32_t line_stride;
  uint32_t pixel_stride;
};

// Must match the push_constant block of gaussian_blur_fast_stream.comp:
// FastPush and the segment length in 16-output tiles.
struct StreamPush {
  FastPush base;
  uint32_t tiles;
};
static_assert(sizeof(StreamPush) == 5 * sizeof(uint32_t), "the shader's block has no padding");

// The split build's block (SPLIT_TAPS): StreamPush, the part's shift and
// what it does with the partial sums.
struct SplitStreamPush {
  StreamPush stream;
  int32_t shift;
  uint32_t mode;
};
static_assert(sizeof(SplitStreamPush) == 7 * sizeof(uint32_t),
              "the shader's block has no padding");
constexpr uint32_t kPartialRead = 1;           // the shader's kPartialRead
constexpr uint32_t kPartialToDestination = 2;  // the shader's kPartialToDestination

// Where steps split their taps (PlanSplitStream): one weight blob per part
// (both axes share them) and the fp32 partial sums, a temporary of the
// image's size in vec4 (two RGBA16F pixels' worth per pixel) that each
// such step writes.
void AddSplitParts(const BlurConfig& config, const std::vector<FastTapPart>& parts,
                   graph::PassPlan& plan, BlurPrepared& prepared) {
  std::vector<size_t> split_steps;
  for (size_t i = 0; i < prepared.steps.size(); ++i) {
    if (!prepared.steps[i].tap_shifts.empty()) split_steps.push_back(i);
  }
  if (split_steps.empty()) return;
  const int first_blob = static_cast<int>(plan.constants.size());
  for (const FastTapPart& part : parts) {
    const std::vector<uint16_t> halves = FastMatrixTapBlocks(part.taps);
    std::vector<std::byte> blob(halves.size() * 2);
    std::memcpy(blob.data(), halves.data(), blob.size());
    plan.constants.push_back(std::move(blob));
  }
  const StepResource sums = StepResource::Temp(static_cast<int>(plan.temp_extents.size()));
  plan.temp_extents.push_back({2 * config.extent.width, config.extent.height});
  for (size_t i : split_steps) {
    prepared.steps[i].constants = first_blob;
    plan.steps[i].writes.push_back(sums);
  }
}

// One dispatch per part, each after the one before (the partial sums).
absl::Status RecordSplitStream(graph::RecordContext& ctx, const StepKernel& k,
                               const StreamPush& stream) {
  const size_t parts = k.tap_shifts.size();
  const gpu::ShaderCode shader = SplitStreamShaderCode(k.shader, sizeof(SplitStreamPush));
  for (size_t p = 0; p < parts; ++p) {
    const SplitStreamPush push{stream, k.tap_shifts[p],
                               (p > 0 ? kPartialRead : 0u) |
                                   (p + 1 == parts ? kPartialToDestination : 0u)};
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0),
                                        ctx.constants(k.constants + static_cast<int>(p)),
                                        ctx.write(1)};
    if (absl::Status s =
            ctx.Dispatch(shader, k.spec, buffers, push, k.groups_x, k.groups_y, 1);
        !s.ok()) {
      return s;
    }
    if (p + 1 < parts) ctx.ComputeBarrier();
  }
  return absl::OkStatus();
}

class FastBlur final : public BlurVariant {
 public:
  std::string_view name() const override { return "fast"; }
  bool exact() const override { return true; }
  std::string Note() const override {
    return absl::StrCat(
        "fast: every tap (exact up to float rounding), weights precomputed in double, 8 "
           "consecutive outputs per invocation from a sliding window (each read feeds up to 8 "
           "multiply-adds; blocks of 8 pixels share 15 weights from shared memory); rows staged with their halo in shared memory when 512 + 2·radius pixels "
           "fit, columns staged the same way in tiles 32 bytes wide (2 RGBA32F or 4 RGBA16F "
           "columns) when the tile fits, longer halos read along the memory's fast axis by one "
           "invocation per line; no transposes, no limit on line length; the zero-padded weights must fit the "
           "shared memory too (with 32 KB: radius <= 4070 in RGBA16F, 4062 in RGBA32F): INVALID_ARGUMENT beyond. With matrix units "
           "(VK_NV_cooperative_matrix) and RGBA16F working: products with banded Toeplitz "
           "matrices, 16x16x16 fp16 with fp32 accumulation: below radius ",
           kFastSplitPolicy.from_radius,
           " each subgroup "
           "streams along 4 lines (one, two or four output tiles per step, as measured "
           "fastest per radius) with the weights rounded to fp16 in registers (an axis off by "
           "less than 2.5e-4 of full scale for sigma = radius / 2, about one RGBA16F "
           "rounding); from it, "
           "the taps are cut into parts of at most ",
           2 * kFastSplitPolicy.part_max_radius + 1,
           ", one streamed dispatch each, their sums "
           "meeting in an fp32 image; where an image is too small to stream, a workgroup stages "
           "a panel where it fits the shared memory, weights split in two fp16 terms (fp32 "
           "accurate). In RGBA32F, where the request allows an approximation (min_psnr_db "
           "> 0, at most the ~57 dB its plan states), the same streamed kernel up to radius 112 "
           "with each block of 16 pixels x 4 lines in fp16 scaled by its magnitude band (within "
           "2^-11 of the largest value in the blocks it reads at any scale; steps across bands, "
           "inf and NaN in "
           "fp32); otherwise RGBA32F keeps the fp32 paths, or at large radii (1080p: columns "
           "from r ~ 255, rows from r ~ 430) transforms each line with its borders by an fp32 "
           "FFT, times the kernel's spectrum, and back (outputs whose window reads only values "
           "far below the line's largest, and lines with inf or NaN, summed directly). Radii <= 8 on both axes (<= 6 where "
           "both axes stream): one "
           "dispatch stages a tile with its halo in shared memory and blurs rows then columns "
           "there (the image read and written once)");
  }

  absl::Status Plan(const BlurConfig& config, graph::PassPlan& plan,
                    BlurPrepared& prepared) const override {
    const std::vector<double> weights = GaussianWeights(config.radius, config.sigma);
    std::vector<float> w(weights.begin(), weights.end());
    std::vector<std::byte> blob(w.size() * sizeof(float));
    std::memcpy(blob.data(), w.data(), blob.size());
    plan.constants.push_back(std::move(blob));
    const uint32_t width = config.extent.width, height = config.extent.height;
    struct Axis {
      std::string label;
      LineLayout layout;
    };
    const uint32_t pixel_bytes = config.working == graph::PixelFormat::kRgba32F ? 16 : 8;
    const bool stream_small = config.radius > kBothAxesBeforeStreamRadius && BothAxesStream(config);
    if (std::optional<StepKernel> both =
            stream_small ? std::nullopt : PlanBothAxes(config, pixel_bytes)) {
      plan.steps.push_back({"both axes", {StepResource::Input(0)}, {StepResource::Output(0)}});
      prepared.steps.push_back(*both);
      prepared.accuracy = {true,
                           "exact (weights in double, fp32 accumulation, the horizontal result "
                           "rounded to the working format as in two steps: float rounding only)",
                           {}};
      return absl::OkStatus();
    }
    std::vector<Axis> axes;
    if (config.axes != "vertical") axes.push_back({"horizontal", {width, height, width, 1, width, 1}});
    if (config.axes != "horizontal") axes.push_back({"vertical", {height, width, 1, width, 1, width}});
    if (axes.size() == 2) {
      plan.temp_extents = {config.extent};
      plan.steps.push_back({"horizontal", {StepResource::Input(0)}, {StepResource::Temp(0)}});
      plan.steps.push_back({"vertical", {StepResource::Temp(0)}, {StepResource::Output(0)}});
    } else {
      plan.steps.push_back({axes[0].label, {StepResource::Input(0)}, {StepResource::Output(0)}});
    }
    // Shared memory: the weights (fp32), then the tile, which holds one
    // block of kFastOutputs pixels at least (the shader declares it even
    // where lines are read straight from memory).
    const uint64_t weight_bytes = LineWeightBytes(uint64_t(config.radius));
    const uint64_t shared = config.caps.max_compute_shared_memory_bytes;
    const uint64_t least_tile = kFastOutputs * pixel_bytes;
    if (weight_bytes + least_tile > shared) {
      uint64_t max_radius = 0;
      while (LineWeightBytes(max_radius + 1) + least_tile <= shared) ++max_radius;
      return absl::InvalidArgumentError(absl::StrCat(
          "pass '", config.pass_name, "': variant fast: radius ", config.radius, " needs ",
          weight_bytes + least_tile, " bytes of shared memory (its weights and ", kFastOutputs,
          " ", std::string(graph::PixelFormatName(config.working)), " pixels), more than the ", shared,
          " bytes of ", config.caps.name, "; radius <= ", max_radius,
          " here, or use variant large_radius, tuned or exact"));
    }
    const uint32_t shared_pixels = static_cast<uint32_t>((shared - weight_bytes) / pixel_bytes);
    bool matrix = false, streamed = false, fft = false;
    int scaled_axes = 0;  // RGBA32F axes streamed in fp16
    const FastSplitPolicy split = SplitPolicy();
    const std::vector<FastTapPart> split_parts =
        config.working == graph::PixelFormat::kRgba16F && config.radius >= split.from_radius
            ? SplitFastTaps(weights, split.part_max_radius)
            : std::vector<FastTapPart>();
    for (const Axis& a : axes) {
      if (std::optional<StepKernel> m = PlanMatrixStep(config, a.layout, split_parts)) {
        prepared.steps.push_back(*m);
        matrix = true;
        streamed = streamed || IsStreamShader(m->shader);
        scaled_axes += IsStreamShader(m->shader) && config.working == graph::PixelFormat::kRgba32F;
        continue;
      }
      if (std::optional<StepKernel> f = PlanFftAxis(config, a.layout)) {
        prepared.steps.push_back(*f);
        fft = true;
        continue;
      }
      StepKernel k;
      k.layout = a.layout;
      const uint32_t radius = static_cast<uint32_t>(config.radius);
      // Rows: segments in shared memory where they fit, else strided.
      std::optional<StepKernel> rows;
      if (a.layout.in_pixel_stride == 1) {
        if (!StridedRowsFrom(radius)) rows = PlanRowSegments(config, a.layout, shared_pixels);
        if (!rows) rows = PlanStridedRows(config, a.layout, pixel_bytes);
      }
      if (rows) {
        k = *rows;
      } else if (std::optional<StepKernel> tiles =
                     PlanColumnTiles(config, a.layout, pixel_bytes, shared_pixels)) {
        k = *tiles;
      } else {
        const uint32_t group_x = std::min(kFastColumnGroup, config.caps.max_workgroup_invocations);
        k.spec.values = {group_x, radius, 1, 1, kFastOutputs, 1, config.border};
        k.groups_x = DivideRoundingUp(a.layout.lines, group_x);
        k.groups_y = DivideRoundingUp(a.layout.n, kFastOutputs);
        k.details = absl::StrCat(a.layout.in_pixel_stride == 1 ? "rows" : "columns",
                                 " read directly, one line per invocation, ", kFastOutputs,
                                 " outputs each");
      }
      prepared.steps.push_back(k);
    }
    if (axes.size() == 2) {
      TileTheTemporary(config, plan, prepared);
      StripTheFftTemporary(config, plan, prepared);
    }
    if (matrix) plan.constants.push_back(MatrixTaps(weights));
    AddSplitParts(config, split_parts, plan, prepared);
    AddFftConstants(weights, plan, prepared);
    if (scaled_axes > 0) {
      // Worst case over both axes: the second reads the first's output,
      // whose largest magnitude is at most the input's (weights sum to 1).
      const double error = scaled_axes * ScaledHalfAxisError(weights);
      const double psnr = -20 * std::log10(error);
      prepared.accuracy = {
          false,
          absl::StrFormat(
              "approximate: every tap, fp32 accumulation, but on the matrix units each RGBA32F "
              "value enters as fp16, scaled by a power of two per block of 16 pixels of 4 "
              "lines by its magnitude band, and the weights as fp16: off by at most %.1e of the "
              "largest magnitude in the blocks its window reads (its window widened to whole "
              "blocks, up to 15 pixels more each side, across its group of 4 lines; fp32 "
              "arithmetic: ~1e-7), at any scale of the image; where a step's blocks span bands "
              "or hold inf or NaN, its outputs are computed in fp32 (inf and NaN spread as in "
              "the fp32 paths); stated PSNR %.1f dB is that bound for values in [0, 1]; taken "
              "because the request allows it (min_psnr_db), else fp32 line paths",
              error, psnr),
          psnr};
      return absl::OkStatus();
    }
    // The streamed kernel's fp16 weights dominate where any axis streams.
    const bool any_split = std::any_of(prepared.steps.begin(), prepared.steps.end(),
                                       [](const StepKernel& k) { return !k.tap_shifts.empty(); });
    const std::string accuracy =
        streamed ? absl::StrFormat(
                       "exact to the working format (every tap, fp32 accumulation%s; the "
                       "streamed matrix kernel's weights rounded to fp16: an axis off by at most "
                       "%.1e of full scale; one RGBA16F rounding of a value near 1 is 2.4e-4, an "
                       "8-bit level 3.9e-3)",
                       any_split
                           ? absl::StrCat(", the taps in ", split_parts.size(),
                                          " parts whose sums meet in fp32")
                           : std::string(),
                       HalfWeightsError(weights))
        : matrix ? "exact (weights in double, split into two fp16 terms on the matrix units, "
                   "fp32 accumulation: float rounding only)"
        : fft ? "exact (every tap, through fp32 FFTs of each line with its borders and the "
                "kernel's spectrum computed in double: float rounding only, each value rounded "
                "about once per radix-16 pass, ~log2(N) / 4 + 1 times a transform)"
                 : "exact (weights in double, fp32 accumulation: float rounding only)";
    prepared.accuracy = {true, accuracy, {}};
    return absl::OkStatus();
  }

  absl::Status Record(graph::RecordContext& ctx, int step,
                      const BlurPrepared& prepared) const override {
    const StepKernel& k = prepared.steps.at(step);
    const LineLayout& l = k.layout;
    const FastPush push{l.n, l.lines, l.in_line_stride, l.in_pixel_stride};
    if (k.shader == kShaderBothAxes) {
      // Must match the push_constant block of gaussian_blur_fast_2d.comp.
      const uint32_t push[] = {l.n, l.lines};
      const gpu::ShaderCode shader =
          WorkingShader(ctx.working_format(), "gaussian_blur_fast_2d", kGaussianBlurFast2dF16,
                        kGaussianBlurFast2dF32, 3, sizeof(push));
      const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(0)};
      return ctx.Dispatch(shader, k.spec, buffers, push, k.groups_x, k.groups_y, 1);
    }
    if (IsFftStep(k)) return RecordFftAxis(ctx, k, prepared.config.radius);
    if (!k.tap_shifts.empty()) return RecordSplitStream(ctx, k, StreamPush{push, k.segment});
    if (IsStreamShader(k.shader)) {
      const StreamPush stream_push{push, k.segment};
      const gpu::ShaderCode shader =
          StreamShaderCode(k.shader, ctx.working_format(), sizeof(stream_push));
      const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(1),
                                          ctx.constants(0)};
      return ctx.Dispatch(shader, k.spec, std::span(buffers).first(shader.num_buffers),
                          stream_push, k.groups_x, k.groups_y, 1);
    }
    if (k.shader == kShaderMatrix) {
      const gpu::ShaderCode shader{"gaussian_blur_fast_tensor", kGaussianBlurFastTensorF16, 3,
                                   sizeof(FastPush)};
      const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(1)};
      return ctx.Dispatch(shader, k.spec, buffers, push, k.groups_x, k.groups_y, 1);
    }
    const gpu::ShaderCode shader =
        WorkingShader(ctx.working_format(), "gaussian_blur_fast", kGaussianBlurFastF16,
                      kGaussianBlurFastF32, 3, sizeof(FastPush));
    const gpu::BufferSlice buffers[] = {ctx.read(0), ctx.write(0), ctx.constants(0)};
    return ctx.Dispatch(shader, k.spec, buffers, push, k.groups_x, k.groups_y, 1);
  }
};

}  // namespace

std::vector<uint16_t> FastMatrixTapBlocks(const std::vector<double>& taps) {
  const int half = static_cast<int>(taps.size() / 2);
  const uint32_t blocks = MatrixTapBlocks(half);
  std::vector<uint16_t> halves(size_t(blocks) * 512);
  for (uint32_t j = 0; j < blocks; ++j) {
    for (int a = 0; a < 16; ++a) {
      for (int b = 0; b < 16; ++b) {
        const int t = int(16 * j) + b - half - a;
        const double w = std::abs(t) <= half ? taps[t + half] : 0.0;
        const uint16_t hi = DoubleToHalf(w);
        halves[j * 512 + a * 16 + b] = hi;
        halves[j * 512 + 256 + a * 16 + b] = DoubleToHalf(w - HalfToDouble(hi));
      }
    }
  }
  return halves;
}

std::vector<FastTapPart> SplitFastTaps(const std::vector<double>& weights, int part_max_radius) {
  const int radius = static_cast<int>(weights.size()) - 1;
  const int taps = 2 * radius + 1;
  const int most = 2 * std::max(part_max_radius, 1) + 1;
  const int count = (taps + most - 1) / most;
  // Near-equal parts, all as wide as the widest (zeros past a part's own
  // taps), so that every part runs the same pipeline.
  const int widest = (taps + count - 1) / count;
  const int half = widest / 2;
  std::vector<FastTapPart> parts;
  int begin = -radius;
  for (int p = 0; p < count; ++p) {
    const int length = taps / count + (p < taps % count ? 1 : 0);
    FastTapPart part{begin + half, std::vector<double>(2 * half + 1, 0.0)};
    for (int d = begin; d < begin + length; ++d) part.taps[d - begin] = weights[std::abs(d)];
    parts.push_back(std::move(part));
    begin += length;
  }
  return parts;
}

void SetFastStridedRowsFrom(std::optional<uint32_t> radius) {
  absl::MutexLock lock(&line_groups_mu);
  strided_rows_override = radius;
}

void SetFastLineGroups(std::optional<uint32_t> row_group, std::optional<uint32_t> column_group) {
  absl::MutexLock lock(&line_groups_mu);
  row_group_override = row_group;
  column_group_override = column_group;
}

void SetFastSplitTaps(std::optional<FastSplitPolicy> policy) {
  absl::MutexLock lock(&shape_override_mu);
  split_override = policy;
}

void SetFastStreamShapeOverride(std::optional<FastStreamShape> shape) {
  absl::MutexLock lock(&shape_override_mu);
  shape_override = shape;
}

void SetFastTiledTempMaxBlocks(std::optional<uint32_t> blocks) {
  absl::MutexLock lock(&shape_override_mu);
  tiled_temp_override = blocks;
}

void SetFastStreamMinSubgroups(std::optional<uint32_t> subgroups) {
  absl::MutexLock lock(&shape_override_mu);
  min_subgroups_override = subgroups;
}

absl::StatusOr<FastStreamShape> ParseFastStreamShape(const std::string& text) {
  const std::vector<std::string> fields = absl::StrSplit(text, ':');
  uint32_t v[6] = {0, 0, 0, 0, 1, 0};
  const char* const names[6] = {"max_tiles",      "ahead",        "tiles_per_step", "warps",
                                "column_chains", "register_ring"};
  if (fields.size() < 4 || fields.size() > 6) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stream shape '", text,
        "': expected max_tiles:ahead:tiles_per_step:warps[:column_chains[:register_ring]], e.g. "
        "24:2:2:1"));
  }
  if (fields.size() == 6 && fields[5] != "0" && fields[5] != "1") {
    return absl::InvalidArgumentError(
        absl::StrCat("stream shape '", text, "': register_ring must be 0 or 1"));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!absl::SimpleAtoi(fields[i], &v[i]) || (i < 5 && v[i] == 0) || v[i] > 64) {
      return absl::InvalidArgumentError(absl::StrCat("stream shape '", text, "': ", names[i], " '",
                                                     fields[i], "' is not a number from 1 to 64"));
    }
  }
  if (v[2] != 1 && v[2] != 2 && v[2] != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("stream shape '", text, "': tiles_per_step must be 1, 2 or 4"));
  }
  if (v[1] % v[2] != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stream shape '", text, "': ahead must be a multiple of tiles_per_step"));
  }
  if (v[4] != 1 && v[4] != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("stream shape '", text, "': column_chains must be 1 or 2"));
  }
  return FastStreamShape{v[0], v[1], v[2], v[3], 0, v[4], v[5]};
}

FastStreamShape FastStreamShapeFor(int radius, bool rgba32f, bool columns) {
  return StreamShape(MatrixTapBlocks(static_cast<uint32_t>(std::max(radius, 0))), rgba32f, columns);
}

int FastMatrixMaxRadius(const gpu::DeviceCaps& caps) {
  if (!caps.f16_matrix_product_16) return -1;
  const MatrixShape smallest = kMatrixShapes[std::size(kMatrixShapes) - 1];
  int radius = -1;
  while (MatrixPanelBytes(radius + 1, smallest) <= caps.max_compute_shared_memory_bytes) ++radius;
  return radius;
}

std::unique_ptr<BlurVariant> MakeFastBlur() { return std::make_unique<FastBlur>(); }

}  // namespace rgfx::passes
