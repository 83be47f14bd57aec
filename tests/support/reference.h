// The CPU reference, in double precision, for the conversions and the blur:
// written from the definitions (not from the shaders) so the GPU is checked
// against an independent implementation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "graph/image_format.h"

namespace rgfx::testing {

// RGBA in double, 4 values per pixel, rows tightly packed.
struct ImageD {
  int width = 0;
  int height = 0;
  std::vector<double> v;
  double& at(int x, int y, int c) { return v[(static_cast<size_t>(y) * width + x) * 4 + c]; }
  double at(int x, int y, int c) const { return v[(static_cast<size_t>(y) * width + x) * 4 + c]; }
};

// Client bytes ↔ normalised values (unorm formats map to [0, 1]).
ImageD DecodeClient(const std::vector<std::byte>& bytes, int width, int height,
                    graph::PixelFormat format);
std::vector<std::byte> EncodeClient(const ImageD& image, graph::PixelFormat format);

// Random client pixels. Premultiplied images get colour <= alpha. Float
// formats get values in [0, 1] too (so sRGB makes sense for them).
std::vector<std::byte> RandomClientImage(int width, int height, graph::PixelFormat format,
                                         bool premultiplied, std::mt19937& rng);

double SrgbToLinear(double c);
double LinearToSrgb(double c);

// import: sRGB → linear when srgb, straight → premultiplied when straight.
ImageD ToWorking(const ImageD& client, bool srgb, bool straight);
// export: the inverse; colour under alpha 0 becomes 0.
ImageD FromWorking(const ImageD& working, bool srgb, bool straight);

enum class Border { kClamp, kMirror, kWrap, kZero };
Border ParseBorder(const std::string& name);
// Where tap i of a line of n pixels reads from; -1 for kZero beyond the
// ends (the tap contributes nothing).
int BorderIndex(int i, int n, Border border);

// One axis of an exact Gaussian: weights exp(-k²/2σ²) normalised over
// k = -radius..radius.
ImageD BlurAxis(const ImageD& in, int radius, double sigma, Border border, bool horizontal);

}  // namespace rgfx::testing
