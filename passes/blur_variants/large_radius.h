// large_radius: a Gaussian approximated at a cost per pixel that does not
// depend on the radius, by one of two methods:
// - recursive (passes/blur_variants/recursive_fit.h): the half kernel as a
//   damped cosine, a complex first-order recursion with a delayed
//   subtraction that truncates it where the Gaussian is truncated; where a
//   line fits shared memory (a row at least two channels at a time) and
//   the device has subgroup shuffles.
// - a stack of centred boxes, each box sum read from the line's prefix sums
//   (any line length).
// Each axis takes the more accurate of the two where both can run on it,
// so an image whose rows fit shared memory and whose columns do not runs
// rows recursive and columns on the box stack; the plan states the PSNR of
// the pair. The kernels and errors are public so tests and benchmarks can
// state what they expect.
#pragma once

#include <cstdint>
#include <vector>

#include "passes/blur_variants/blur_variant.h"
#include "passes/blur_variants/recursive_fit.h"

namespace rgfx::passes {

// Most boxes per axis: each costs two prefix-sum reads per output pixel.
inline constexpr int kLargeRadiusBoxes = 8;

// StepKernel::shader of the recursive kernel on whole pixels
// (gaussian_blur_recursive.comp without CHANNEL_PAIRS): benchmarks that run
// a build of that kernel (rgfx-gpu-bench --phase_clock) look for it.
inline constexpr int kLargeRadiusRecursiveShader = 2;

// Must match the push_constant block of gaussian_blur_recursive.comp.
struct RecursivePush {
  uint32_t n;
  uint32_t lines;
  uint32_t line_stride;  // in pixels
  uint32_t pixel_stride;
  uint32_t border;
  uint32_t radius;
  uint32_t extend;
};

// The recursive kernel's push constants for step `k` of the plan `prepared`
// (large_radius's own dispatch, and benchmarks that run a build of it).
RecursivePush RecursivePushFor(const BlurPrepared& prepared, const StepKernel& k);

// The kernel over offsets 0..radius as a staircase: box i covers
// |k| <= half_widths[i] with weight coeffs[i] per tap; half_widths rises and
// its last entry is the radius (the exact kernel is truncated there too).
struct BoxStack {
  std::vector<int> half_widths;
  std::vector<double> coeffs;
  // The staircase's weight at offset k (0..radius).
  std::vector<double> Kernel(int radius) const;
};

// Breakpoints start where the normalised Gaussian crosses `levels` equally
// spaced values between its edge and its peak, then move while that lowers
// the squared distance to the Gaussian (each breakpoint in turn); each
// step's height is the mean of the Gaussian over the taps it covers (least
// squares for the given steps), so the weights still sum to 1. With
// radius + 1 <= levels every tap is its own step: the exact kernel.
BoxStack ChooseBoxStack(int radius, double sigma, int levels = kLargeRadiusBoxes);

// Expected PSNR (dB, peak 1) against the exact blur on uniform white noise in
// [0, 1] for two symmetric half kernels (taps 0..radius), borders ignored
// (see DecimatedNoisePsnr). Infinite when they are equal.
double KernelNoisePsnr(const std::vector<double>& exact, const std::vector<double>& approx,
                       bool both_axes);
// The same for a blur whose two axes apply different kernels (rows `rows`,
// columns `columns`, e.g. one axis recursive and the other the box stack):
// the 2-D error kernel exact⊗exact − rows⊗columns is separable into inner
// products of the half kernels.
double MixedKernelNoisePsnr(const std::vector<double>& exact, const std::vector<double>& rows,
                            const std::vector<double>& columns);

// The fp32 rounding of the prefix sums on lines of n pixels with values in
// [0, 1]: each box sum is a difference of two sums of magnitude up to n + 2R,
// each carrying `roundings_per_sum` roundings of half an ulp (the two-dispatch
// path's Kahan scan: about 1.5; the fused path adds its tree scan's levels,
// see FusedScanRoundings). As a PSNR (dB), treating the roundings as
// independent uniform errors.
// Roundings of one prefix sum of the two-dispatch path's Kahan scan.
inline constexpr double kKahanScanRoundings = 1.5;
double PrefixRoundingPsnr(const BoxStack& stack, int radius, int n_max, bool both_axes,
                          double roundings_per_sum = kKahanScanRoundings);

// The fused path (one dispatch per axis, prefix sums in shared memory) for
// one axis: lines of n pixels, `lines` of them, on a device with
// `shared_bytes` of shared memory per workgroup and at most
// `max_invocations` per workgroup. lines_per_group == 0 means they do not fit:
// the two-dispatch path runs.
struct FusedGeometry {
  uint32_t threads = 0;          // invocations per workgroup (power of two)
  uint32_t lines_per_group = 0;  // power of two; 0: not fused
  uint32_t segment = 0;          // pixels each invocation scans (odd)
  uint32_t shared_bytes = 0;     // what the workgroup's shared memory takes
  // Pixels per line the shared arrays hold: n rounded up to a multiple of
  // kFusedCapacityStep where that fits, else n. A specialization constant,
  // so lines of up to 64 lengths share one pipeline (the pipeline cache
  // keeps every pipeline it makes: one per length would grow with every
  // image size a client sends).
  uint32_t capacity = 0;
  // The subgroups the scan shuffles within (the device's size).
  uint32_t subgroup_size = 0;
};
constexpr uint32_t kFusedCapacityStep = 64;
// subgroup_size: the device's, where it has relative subgroup shuffles in
// compute shaders; 0 where it does not (nothing fuses then).
FusedGeometry ChooseFusedGeometry(uint32_t n, uint32_t lines, uint32_t shared_bytes,
                                  uint32_t max_invocations, uint32_t subgroup_size);

// The recursive path (shaders/gaussian_blur_recursive.comp) for one axis:
// lines of n pixels, the recursions run over n + 2·extend of them in chunks
// of kRecursiveChunk, one invocation per chunk, the chunks of a line padded
// to whole subgroups. lines_per_group == 0 means it cannot run: lines too
// long for shared memory or a workgroup, or no relative subgroup shuffles
// (subgroup_size 0). Rows one per workgroup, columns a strip of up to 2.
struct RecursiveGeometry {
  uint32_t threads = 0;
  uint32_t lines_per_group = 0;
  // Pixels per line in shared memory, margins included: rounded up as for
  // fused (so that nearby lengths share a pipeline) where that costs no
  // occupancy, else exact.
  uint32_t capacity = 0;
  uint32_t chunks = 0;    // per line, including the padding to whole subgroups
  // Pixels per chunk: the line (rounded up to kFusedCapacityStep) spread
  // evenly over the chunks, at most RecursiveMaxChunk(columns, pixel
  // bytes); the plan's rounding bound uses it.
  uint32_t chunk = 0;
  uint32_t shared_bytes = 0;
  // Pixels the strip holds beyond each end of the recursions' domain (the
  // delayed reads' reach, filled through the border), so that no read in
  // the sweeps needs a check: the requested margin where it fits and fewer
  // workgroups would not run at once for it (RecursiveResidentWorkgroups);
  // else, where the line is not extended (clamp and zero borders), 1 with
  // clamped_reads on the same terms; else 0.
  uint32_t margin = 0;
  // The sweeps clamp every read to the one-pixel margins (the shader's
  // kMargined 2): what lies beyond an end of a clamp or zero line is one
  // value.
  bool clamped_reads = false;
};
constexpr uint32_t kRecursiveChunk = 16;  // the most pixels per chunk (the shader's kChunk)
// RGBA16F columns take chunks of up to 17: 1,080 rows in 64 chunks of 17
// instead of 96 of 12 (two subgroups a column instead of three), 2,160 in
// 128 instead of 160 of 14; most other lengths take the same slots either
// way. Vertical pass, µs, RGBA16F, cap 16 -> 17: H100 1080p r=64 45.1 ->
// 43.0; H200 1080p r=64 44.3 -> 41.2, r=1024 46.1 -> 41.5, 4K r=64 161.3 ->
// 149.2. RGBA32F columns lost on the H200 (1080p 55.0 -> 60.2, 4K 326.9 ->
// 337.7): their strip is twice the shared memory and banks.
constexpr uint32_t kRecursiveChunkHalfColumns = 17;
// Radii below this take the box stack, which is the exact kernel up to
// radius kLargeRadiusBoxes - 1 and close to it a little beyond.
constexpr int kRecursiveMinRadius = 8;
// The most the shader's backward recursion (run forwards through 1/p
// within a chunk) may grow a rounding error: |p|^-kRecursiveChunk.
constexpr double kRecursiveMaxGrowth = 256;
RecursiveGeometry ChooseRecursiveGeometry(uint32_t n, uint32_t lines, bool columns,
                                          uint32_t extend, uint32_t margin, uint32_t pixel_bytes,
                                          uint32_t shared_bytes,
                                          uint32_t max_invocations, uint32_t subgroup_size);

// How many workgroups of the recursive kernel (`threads` invocations,
// `shared_bytes` of shared memory, pixels of `pixel_bytes` in the strip) an
// H100 multiprocessor runs at once, by its registers and shared memory as
// measured (a model: other devices differ, and a wrong count only turns
// the margins on or off).
uint32_t RecursiveResidentWorkgroups(uint64_t shared_bytes, uint32_t threads,
                                     uint32_t pixel_bytes);

// Expected PSNR (dB, peak 1) of the recursion's fp32 rounding on lines of
// up to n_max pixels with values in [0, 1]: each output carries the
// rounding of states of magnitude up to Σ|p|^k, accumulated over the steps
// an error lives (1 / (1 − |p|), at most the line), for both recursions,
// the backward one's grown as the shader runs it through chunks of up to
// `chunk` pixels (|p|^-j after j steps).
double RecursiveRoundingPsnr(const RecursiveFit& fit, int radius, int n_max, bool both_axes,
                             uint32_t chunk);

// For benchmarks and the box paths' tests: while true, every plan made from
// then on uses the box stack. Process-wide; the server never sets it.
void SetLargeRadiusBoxesOnly(bool boxes_only);

// Where both axes run recursive and the columns go several a workgroup, S
// of them making 32 bytes or more (RGBA32F), the temporary between them in
// strips of S columns: the rows store pixel (x, y) at (x / S)·S·H + y·S +
// x % S, so that each column workgroup loads its strip as one contiguous
// run (the image's layout gives it S pixels of each row); its width
// rounded up to whole strips. The plan's rule unless a measurement sets
// another (rgfx-gpu-bench --large_radius_strip_temporary): 0 the image's
// layout always, 1 the plan's rule, N >= 2 (a multiple of the column
// workgroup's lines) strips of N columns wherever both axes run recursive,
// any format (e.g. RGBA16F in strips of 4: 32-byte rows for the row pass's
// stores while a column workgroup reads half of each). Process-wide; the
// server never sets it.
void SetLargeRadiusStripTemporary(uint32_t strip);

// For measurements (rgfx-gpu-bench --large_radius_max_chunk): the most
// pixels per chunk of the recursive path on every axis,
// kRecursiveMinChunkCap to kRecursiveMaxChunkCap, 0 for the defaults
// (RecursiveMaxChunk). The plan's rounding bound and statement follow it.
// Process-wide; the server never sets it.
void SetLargeRadiusMaxChunk(uint32_t most);
// The most pixels per chunk on an axis of pixels of `pixel_bytes` in the
// strip: kRecursiveChunkHalfColumns for RGBA16F columns, kRecursiveChunk
// otherwise, unless a measurement set another.
uint32_t RecursiveMaxChunk(bool columns, uint32_t pixel_bytes);
// The most pixels per chunk any plan uses now (the backward recursion's
// growth bound holds for it).
uint32_t RecursiveMaxChunk();
constexpr uint32_t kRecursiveMinChunkCap = 4, kRecursiveMaxChunkCap = 32;

// Roundings of one fused prefix sum: the line mean's subtraction, the Kahan
// segment scan, one per level of the segment totals' scan and one where its
// within-subgroup and across-subgroup parts meet.
double FusedScanRoundings(const FusedGeometry& g);

}  // namespace rgfx::passes
