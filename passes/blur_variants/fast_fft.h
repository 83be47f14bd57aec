// gaussian_blur "fast" in RGBA32F: one axis through the FFT
// (shaders/gaussian_blur_fft.comp): a workgroup transforms its line (two
// complex sequences, red + i·green and blue + i·alpha), multiplies the
// spectrum by the kernel's and transforms back. Every tap is in the
// product, so the cost follows log2 of the line's length, not the radius
// (about a fifth of the direct sum's arithmetic at r = 64). Its rounding is
// relative to the whole line, so a guard sums directly the outputs whose
// window reads only values far below the line's largest, and lines holding
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

// The transform length for a line of n pixels at `radius`: the smallest
// power of two >= n + 2·radius (the line and its borders, so that the
// circular convolution reaches no output across the ends) and >= kFftMinSize.
uint64_t FftLineSize(uint64_t n, uint64_t radius);

// The largest transform the device runs with `per_invocation` elements an
// invocation: 16 bytes of shared memory an element, 8 with `pairs` (one
// sequence a workgroup).
uint32_t FftMaxSize(const gpu::DeviceCaps& caps, uint32_t per_invocation = 16, bool pairs = false);

// exp(−2πi·t/N) for t < N, as (re, im) pairs rounded from double.
std::vector<float> FftTwiddles(uint32_t size);

// The spectrum of the kernel `weights` (w[0..R], symmetric) laid circularly
// around index 0 of N, divided by N (the inverse transform's scale): real,
// H[k] = (w0 + 2·Σ w_t·cos(2π·t·k/N)) / N, summed in double.
std::vector<float> FftKernelSpectrum(const std::vector<double>& weights, uint32_t size);

// Whether an axis of `n`-pixel lines at `radius` costs less through
// `size`-point transforms than through the fp32 line paths, by the cost
// model fitted to the H200's times (fast_fft.cc): the line paths' work
// grows with (2·radius + 1)·n, the transforms' with `size`, at a rate that
// depends on whether the lines are rows (consecutive in memory) or columns
// and on whether a workgroup holds both channel pairs.
bool FftPays(uint64_t n, uint64_t radius, uint64_t size, bool columns, bool pairs);

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

// Where and how fast's RGBA32F axes take the FFT (measured:
// docs/PERFORMANCE.md, "`fast` RGBA32F through the FFT").
struct FftPolicy {
  // -1: where FftPays says; else from this radius on wherever the transform
  // fits (benchmarks and tests; a huge radius: never).
  int from_radius;
  uint32_t per_invocation;  // elements an invocation holds: 16 or 8
  // One sequence (two channels) a workgroup even where both fit (else only
  // where the transform needs it).
  bool pairs_always;
};
FftPolicy FastFftPolicy();
// For benchmarks (rgfx-gpu-bench --fft_from_radius, --fft_per_invocation,
// --fft_transposed): while set, every plan from then on follows `policy`
// (from_radius huge: never); std::nullopt restores the measured one.
// Process-wide; the server never sets it.
void SetFastFftPolicy(std::optional<FftPolicy> policy);

}  // namespace rgfx::passes
