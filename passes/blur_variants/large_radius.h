// large_radius: a Gaussian approximated by a stack of centred boxes, each
// box sum read from the line's prefix sums, so the cost per pixel does not
// depend on the radius. The box stack and its error are public so tests and
// benchmarks can state what they expect.
#pragma once

#include <vector>

namespace rgfx::passes {

// Most boxes per axis: each costs two prefix-sum reads per output pixel.
inline constexpr int kLargeRadiusBoxes = 8;

// The kernel over offsets 0..radius as a staircase: box i covers
// |k| <= half_widths[i] with weight coeffs[i] per tap; half_widths rises and
// its last entry is the radius (the exact kernel is truncated there too).
struct BoxStack {
  std::vector<int> half_widths;
  std::vector<double> coeffs;
  // The staircase's weight at offset k (0..radius).
  std::vector<double> Kernel(int radius) const;
};

// Breakpoints where the normalised Gaussian crosses `levels` equally spaced
// values between its edge and its peak; each step's height is the mean of
// the Gaussian over the taps it covers (least squares for the given steps),
// so the weights still sum to 1. With radius + 1 <= levels every tap is its
// own step: the exact kernel.
BoxStack ChooseBoxStack(int radius, double sigma, int levels = kLargeRadiusBoxes);

// Expected PSNR (dB, peak 1) against the exact blur on uniform white noise in
// [0, 1] for two symmetric half kernels (taps 0..radius), borders ignored
// (see DecimatedNoisePsnr). Infinite when they are equal.
double KernelNoisePsnr(const std::vector<double>& exact, const std::vector<double>& approx,
                       bool both_axes);

// The fp32 rounding of the prefix sums on lines of n pixels with values in
// [0, 1]: each box sum is a difference of two sums of magnitude up to n + 2R,
// each rounded to half an ulp, and the Kahan scan adds about one more. As a
// PSNR (dB), treating the roundings as independent uniform errors.
double PrefixRoundingPsnr(const BoxStack& stack, int radius, int n_max, bool both_axes);

}  // namespace rgfx::passes
