// Double-precision CPU references of the effect passes, written from their
// definitions (the papers' sample patterns), not from the shaders.
#pragma once

#include <string>

#include "tests/support/reference.h"

namespace rgfx::testing {

// The pixel at (x, y) through the border mode (0 outside for zero).
double At(const ImageD& img, int x, int y, int c, Border border);
// Bilinear sample at pixel-centre coordinates (x, y).
double Bilinear(const ImageD& img, double x, double y, int c, Border border);

ImageD DownsampleRef(const ImageD& in, int factor, const std::string& filter, Border border);
// base: nullptr or the image the result is added to (its size is the output's).
ImageD UpsampleRef(const ImageD& in, int factor, const std::string& filter, Border border,
                   const ImageD* base, double base_weight = 1.0);
ImageD ThresholdRef(const ImageD& in, double threshold, double knee);
ImageD CompositeRef(const ImageD& a, const ImageD& b, const std::string& mode, double factor);
ImageD DualFilterRef(const ImageD& in, int iterations, double offset, Border border);
// The value every branch_lab mode must write.
ImageD BranchLabRef(const ImageD& in);

}  // namespace rgfx::testing
