// gaussian_blur "fast" in RGBA32F: one axis through the FFT
// (shaders/gaussian_blur_fft.comp): a workgroup transforms a segment of a
// line with R pixels of context either side (two complex sequences,
// red + i·green and blue + i·alpha), multiplies the
// spectrum by the kernel's and transforms back. Every tap is in the
// product, so the cost follows log2 of the transform's length, not the radius
// (about a fifth of the direct sum's arithmetic at r = 64). Its rounding is
// relative to the whole segment, so a guard sums directly the outputs whose
// window reads only values far below the segment's largest, and segments holding
// inf or NaN: every output stays exact to fp32 rounding relative to its own
// window, as on the line paths.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "passes/blur_variants/blur_variant.h"

namespace rgfx::passes {

// Transform lengths the shader takes: powers of two from 16 · 16 (its
// invocations hold 16 elements each and its first pass has radix 16).
inline constexpr uint32_t kFftMinSize = 256;

// Where and how fast's RGBA32F axes take the FFT (measured:
// docs/PERFORMANCE.md, "`fast` RGBA32F through the FFT").
struct FftPolicy {
  // -1: where FftPays says; else from this radius on wherever the transform
  // fits (benchmarks and tests; a huge radius: never).
  int from_radius;
  // Elements an invocation holds: 16 or 8; 0: FftPerInvocation's.
  uint32_t per_invocation;
  // One sequence (two channels) a workgroup even where both fit (else only
  // where the transform needs it).
  bool pairs_always;
  // The transform length (a power of two the device fits, > 2·radius), or
  // 0: FftCheapestShape's.
  uint32_t size = 0;
  // Columns a workgroup (neighbours in memory, so that the loads and stores
  // of a subgroup take several pixels of each row), where the device fits
  // them; 0: FftColumnsAWorkgroup's. Rows take one.
  uint32_t columns = 0;
  // Where both axes transform and the columns go several a workgroup, the
  // temporary between them in strips of that many columns
  // (StripTheFftTemporary); false: in the image's own layout.
  bool strip_temporary = true;
};

// The transform length for a line of n pixels at `radius` in one piece:
// the smallest power of two >= n + 2·radius (the line and its borders, so
// that the circular convolution reaches no output across the ends) and
// >= kFftMinSize.
uint64_t FftLineSize(uint64_t n, uint64_t radius);

// How an axis's lines are cut for `size`-point transforms (overlap-save): a
// workgroup (a channel pair's, where a workgroup holds one) transforms
// `segment` outputs of a line and `radius` pixels either side, so a
// segment holds size − 2·radius outputs at most; `segments` a line, as few
// as hold it, their outputs balanced (the last one takes what is left).
struct FftSegments {
  uint64_t size = 0;
  uint64_t segments = 0;
  uint64_t segment = 0;
};
// Requires size > 2·radius and n > 0.
FftSegments FftSegmentsOf(uint64_t n, uint64_t radius, uint64_t size);
// The transform's work for an axis cut so, in 2048-point transforms:
// segments · size · log2(size) / (2048 · 11), a line.
double FftWork(const FftSegments& s);

// The largest transform the device runs with `per_invocation` elements an
// invocation and `lines` lines a workgroup: 16 bytes of shared memory an
// element, 8 with `pairs` (one sequence a workgroup).
uint32_t FftMaxSize(const gpu::DeviceCaps& caps, uint32_t per_invocation = 16, bool pairs = false,
                    uint32_t lines = 1);

// exp(−2πi·t/N) for t < N, as (re, im) pairs rounded from double.
std::vector<float> FftTwiddles(uint32_t size);

// The spectrum of the kernel `weights` (w[0..R], symmetric) laid circularly
// around index 0 of N, divided by N (the inverse transform's scale): real,
// H[k] = (w0 + 2·Σ w_t·cos(2π·t·k/N)) / N, summed in double.
std::vector<float> FftKernelSpectrum(const std::vector<double>& weights, uint32_t size);

// Elements an invocation holds for `size`-point transforms where the
// policy leaves it to the plan: 8 up to 1024 points (at least 32
// invocations a workgroup, and under 100 registers each against ~160 with
// 16, which leaves the H200 more workgroups to hide the passes' latency),
// 16 from 2048.
uint32_t FftPerInvocation(uint64_t size);

// How an axis runs through the FFT: its segments, elements an invocation,
// and whether a workgroup holds one channel pair (`pairs`) or both.
struct FftShape {
  FftSegments cut;
  uint32_t per_invocation = 16;
  bool pairs = false;
  uint32_t lines = 1;  // lines a workgroup (neighbouring columns)
};

// Columns a workgroup where the policy leaves it to the plan: the most of
// 4, 2 and 1 whose transforms fit the device's shared memory together, in
// 128 invocations at most (more leave the H200 fewer subgroups a
// multiprocessor, their registers being the limit): two for 512 points
// with 8 elements an invocation.
uint32_t FftColumnsAWorkgroup(const gpu::DeviceCaps& caps, uint64_t size, uint32_t per_invocation,
                              bool pairs);

// The cost of an axis's transforms in the line paths' unit, a multiply-add
// a pixel and channel ((70 + 2R + 1)·n a line there, FftPays): kappa · 2048 · FftWork,
// kappa fitted to the H200's times for rows or columns and the kernel's
// shape (fast_fft.cc).
double FftCost(const FftShape& shape, bool columns);

// The cheapest shape (FftCost; the shorter transform of two equal) for
// lines of n pixels at `radius` on `caps`: transform lengths a power of two
// from kFftMinSize to FftLineSize(n, radius) that the device fits, above
// 2·radius (or the policy's length), elements an invocation and pairs as
// the policy says or FftPerInvocation and the device's shared memory need;
// nothing where none fits; 256 points only where they hold the whole line
// (or the policy asks). A shorter transform costs less an element but
// reads 2·radius pixels more a segment: at 1080p r = 64 the rows take five
// segments of 512 points (0.74x the line paths' time on the H200).
std::optional<FftShape> FftCheapestShape(uint64_t n, uint64_t radius, bool columns,
                                         const gpu::DeviceCaps& caps, const FftPolicy& policy);

// Whether an axis of `n`-pixel lines at `radius` costs less through
// transforms of `cost` (FftCost) than through the fp32 line paths, whose
// time a line is that of (70 + 2·radius + 1)·n multiply-adds (70: their
// memory traffic's worth, fitted to the H200), with a margin of 5% for the
// model's error near break-even.
bool FftPays(uint64_t n, uint64_t radius, double cost);

// The FFT kernel for one axis of `config` (fast, RGBA32F working, where
// the policy says), or nothing where it does not apply, pay or fit the
// device.
// The step's constant blobs (twiddles, then spectrum) are AddFftConstants's.
std::optional<StepKernel> PlanFftAxis(const BlurConfig& config, const LineLayout& layout);
// Adds the blobs of every FFT step in `prepared` to the plan (twiddles, and
// the spectrum of `weights`, the plan's w(0..R)) and points the steps at
// them.
void AddFftConstants(const std::vector<double>& weights, graph::PassPlan& plan,
                     BlurPrepared& prepared);
// Records an FFT step of a blur at `radius`.
absl::Status RecordFftAxis(graph::RecordContext& ctx, const StepKernel& k, int radius);
bool IsFftStep(const StepKernel& k);
// Where both of `prepared`'s steps are FFT axes (rows, then columns S > 1 a
// workgroup) and the policy allows it, the temporary between them in strips
// of S columns: the rows store pixel (x, y) at (x / S)·S·H + y·S + x % S and
// the columns load each workgroup's S columns as one contiguous run (S·H
// pixels), where the image's own layout gives a subgroup's load S pixels of
// each of 16 rows. The temporary's width is rounded up to a multiple of S.
void StripTheFftTemporary(const BlurConfig& config, graph::PassPlan& plan, BlurPrepared& prepared);

FftPolicy FastFftPolicy();
// For benchmarks (rgfx-gpu-bench --fft_from_radius, --fft_per_invocation,
// --fft_pairs, --fft_size): while set, every plan from then on follows `policy`
// (from_radius huge: never); std::nullopt restores the measured one.
// Process-wide; the server never sets it.
void SetFastFftPolicy(std::optional<FftPolicy> policy);

}  // namespace rgfx::passes
