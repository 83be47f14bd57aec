// gaussian_blur "fast": what its matrix path (fast.cc) can take on a device,
// for the device notes and the tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

#include "gpu/caps.h"

namespace rgfx::passes {

// The largest radius the matrix path takes on `caps` (RGBA16F working): its
// panel grows with the radius and must fit the shared memory. −1 without
// matrix units.
int FastMatrixMaxRadius(const gpu::DeviceCaps& caps);

// The largest radius fast's streamed matrix kernel takes in RGBA32F (its
// fp16 path in magnitude bands, where a request allows it); beyond it the
// fp32 line paths.
inline constexpr int kFastStreamMaxRadius = 112;
// The same in RGBA16F (the J weight blocks live in registers, 4 a block a
// lane): at r = 448 (J = 57) one subgroup's ring of J + 3 blocks and four
// scratch blocks fill 48 KB. Beyond it the line paths (the panel kernel
// does not fit either); 2-3.6x slower than the stream at r = 128-320.
inline constexpr int kFastStreamMaxRadiusF16 = 448;

// Beyond one streamed pass (RGBA16F): from `from_radius` on, each axis's
// taps are cut into parts of at most 2·part_max_radius + 1, one dispatch of
// the streamed kernel each, their sums meeting in an fp32 image; where a
// part cannot stream, the paths above.
struct FastSplitPolicy {
  int from_radius;
  int part_max_radius;
};
// H200, 1080p, µs H + V (docs/PERFORMANCE.md, "`fast` RGBA16F at any
// radius"): parts of up to 321 taps (half width 160) were within 1% of the
// best of 160-256 at r = 449, 512, 768 and 1024 (parts of a half width
// beyond ~200 spill registers: r = 449 in 2 parts of 451, 478, against 3 of
// 301, 382); one pass won at r = 368 (298 against 317 split) and lost
// from 384 (358 against 328 in three parts; r = 400 425 against 368),
// where its weight blocks spill most.
inline constexpr FastSplitPolicy kFastSplitPolicy = {384, 160};
// For benchmarks (rgfx-gpu-bench --split_from_radius, --split_part_radius):
// while set, every plan made from then on splits by `policy`; std::nullopt
// restores kFastSplitPolicy. Process-wide; the server never sets it.
void SetFastSplitTaps(std::optional<FastSplitPolicy> policy);

// One part of split taps: taps.size() = 2h + 1 weights, taps[h + e] the
// weight of the input `shift + e` pixels from the output (zeros past the
// part's own taps).
struct FastTapPart {
  int shift;
  std::vector<double> taps;
};
// The kernel w(0..R) (symmetric) in near-equal contiguous parts of at most
// 2·part_max_radius + 1 taps, in order from −R, all of one width (the
// widest): each tap in exactly one part. One part where all fit.
std::vector<FastTapPart> SplitFastTaps(const std::vector<double>& weights, int part_max_radius);

// The streamed kernel's weight blocks for a centred run of 2h + 1 taps:
// T_j[a][b] = taps[16j + b − a] (zero beyond), j < 1 + ⌈2h / 16⌉, each as
// fp16 bits hi (the rounding) then lo (the remainder's rounding):
// [j][hi, lo][a][b], 512 halves a block.
std::vector<uint16_t> FastMatrixTapBlocks(const std::vector<double>& taps);

// The streamed matrix kernel's shape at a radius (up to 448) for RGBA16F
// or (rgba32f) RGBA32F, chosen per weight-block count from measurements
// (fast.cc has them).
struct FastStreamShape {
  uint32_t max_tiles;       // 16-output tiles per subgroup segment, at most
  uint32_t ahead;           // blocks loaded ahead of the products (a multiple of tiles_per_step)
  uint32_t tiles_per_step;  // output tiles per step: 1, 2 or 4 (gaussian_blur_fast_stream.comp)
  uint32_t warps;           // subgroups per workgroup
  // Large images: segments may grow up to this many tiles while the image
  // gives more than kStreamManySubgroups (fast.cc) subgroups; 0 = never
  // beyond max_tiles.
  uint32_t long_tiles = 0;
  // Accumulator chains per tile in column passes (1 or 2): two halve the
  // chain of dependent products each tile waits for, for 8 more registers
  // a tile. Row passes keep one (where two were measured, they gained
  // nothing there).
  uint32_t column_chains = 1;
  // 1: the blocks a step needs wait in registers, each loaded from shared
  // memory once, and shared memory only stages the blocks a step brings in
  // (RGBA16F; RGBA32F's magnitude bands keep every block in shared memory).
  uint32_t register_ring = 0;
};
// columns: a pass whose lines are adjacent in memory (a column pass),
// which RGBA16F measures apart from rows. Images of every size take these
// shapes; large ones only grow their segments (fast.cc's long_tiles).
FastStreamShape FastStreamShapeFor(int radius, bool rgba32f = false, bool columns = false);

// For benchmarks that measure the shapes against each other
// (rgfx-gpu-bench --sweep_stream_shapes): while set, every plan made from
// then on streams in `shape` wherever the streamed kernel would run and
// the shape fits the device (else the other paths, as for any shape that
// does not fit); std::nullopt restores the measured table. Process-wide;
// the server never sets it.
void SetFastStreamShapeOverride(std::optional<FastStreamShape> shape);
// "max_tiles:ahead:tiles_per_step:warps[:column_chains[:register_ring]]",
// e.g. "24:2:2:1", "24:2:2:1:2" or "20:2:2:2:1:1"; an error names the field
// that is wrong (ahead must be a multiple of tiles_per_step, column_chains 1
// or 2, register_ring 0 or 1).
absl::StatusOr<FastStreamShape> ParseFastStreamShape(const std::string& text);
// For benchmarks (rgfx-gpu-bench --stream_min_subgroups): while set, the
// fewest subgroups a streamed pass may run in, instead of fast.cc's
// kStreamMinSubgroups (1,024; 768 from r = 65): segments grow until a pass has that many,
// and the one-wave rule may drop a segment down to it. Process-wide; the
// server never sets it.
void SetFastStreamMinSubgroups(std::optional<uint32_t> subgroups);

// For benchmarks (rgfx-gpu-bench --line_row_group, --line_column_group):
// while set, the line paths' invocations per row segment (each blurs 8
// pixels) and per column tile (a multiple of 32 and of the tile's 2 or 4
// columns; only where its tile fits the shared memory) instead of the
// plan's. Process-wide; the server never sets it.
void SetFastLineGroups(std::optional<uint32_t> row_group, std::optional<uint32_t> column_group);

// For benchmarks (rgfx-gpu-bench --strided_rows_from_radius): while set,
// rows from this radius on skip the line paths' segments in shared memory
// for the strided path (lanes along the row, outputs 32 px apart), which
// the plan takes only where no segment fits. Process-wide; the server never
// sets it.
void SetFastStridedRowsFrom(std::optional<uint32_t> radius);

// For benchmarks (rgfx-gpu-bench --tiled_temp_max_blocks): while set, the
// temporary between fast's two streamed RGBA16F passes is stored in tiles
// where the kernel takes at most this many weight blocks (J = 1 + ⌈2R / 16⌉
// of the whole kernel, fast.cc's MatrixTapBlocks), split taps or not,
// instead of fast.cc's rule (J <= kTiledTempMaxBlocks, or split taps).
// Process-wide; the server never sets it.
void SetFastTiledTempMaxBlocks(std::optional<uint32_t> blocks);

}  // namespace rgfx::passes
