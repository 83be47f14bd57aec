// decimated: at most max_taps taps, stepping over pixels for large radii.
// The tap pattern and its error are public so tests and benchmarks can state
// what they expect.
#pragma once

#include <string>

namespace rgfx::passes {

struct DecimatedTaps {
  int step = 1;       // pixels between taps
  int half_taps = 0;  // taps each side of the centre; half_taps·step ≤ radius
};

// Every tap when 2·radius+1 ≤ max_taps; else the smallest step that keeps
// 2·half_taps+1 ≤ max_taps, reaching as far as the radius allows.
DecimatedTaps ChooseDecimatedTaps(int radius, int max_taps);

// Expected PSNR (dB, peak 1) of the decimated blur against the exact one on
// uniform white noise in [0, 1] (variance 1/12), borders ignored: the noise
// passes through the difference kernel D, so MSE = ||D||² / 12, where for both
// axes ||a⊗a - b⊗b||² = (a·a)² - 2(a·b)² + (b·b)². Infinite when exact.
double DecimatedNoisePsnr(int radius, double sigma, DecimatedTaps taps, bool both_axes);

}  // namespace rgfx::passes
