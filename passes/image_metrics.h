// Image comparison for approximate variants: the lead's responses and the
// benchmarks report PSNR against the exact result.
#pragma once

#include <span>

namespace rgfx::passes {

// Peak signal-to-noise ratio of `test` against `reference` in dB, over all
// values (channels included), for values whose full scale is `peak` (1.0 for
// normalised working-format images). +infinity when they are identical.
// Both spans must have the same size (else NaN).
double Psnr(std::span<const float> reference, std::span<const float> test, double peak = 1.0);
double Psnr(std::span<const double> reference, std::span<const double> test, double peak = 1.0);

}  // namespace rgfx::passes
