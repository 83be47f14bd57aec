#include "tests/passes/effects_reference.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rgfx::testing {
namespace {

int Index(int i, int n, Border border) {
  if (i >= 0 && i < n) return i;
  switch (border) {
    case Border::kClamp:
      return std::clamp(i, 0, n - 1);
    case Border::kWrap:
      return ((i % n) + n) % n;
    case Border::kMirror: {
      const int m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
    case Border::kZero:
      return -1;
  }
  return -1;
}

ImageD Blank(int w, int h) { return ImageD{w, h, std::vector<double>(size_t(w) * h * 4)}; }

}  // namespace

double At(const ImageD& img, int x, int y, int c, Border border) {
  const int i = Index(x, img.width, border), j = Index(y, img.height, border);
  return i < 0 || j < 0 ? 0.0 : img.at(i, j, c);
}

double Bilinear(const ImageD& img, double x, double y, int c, Border border) {
  const double fx = std::floor(x), fy = std::floor(y);
  const double tx = x - fx, ty = y - fy;
  const int x0 = int(fx), y0 = int(fy);
  const double top = (1 - tx) * At(img, x0, y0, c, border) + tx * At(img, x0 + 1, y0, c, border);
  const double bottom =
      (1 - tx) * At(img, x0, y0 + 1, c, border) + tx * At(img, x0 + 1, y0 + 1, c, border);
  return (1 - ty) * top + ty * bottom;
}

ImageD DownsampleRef(const ImageD& in, int f, const std::string& filter, Border border) {
  ImageD out = Blank((in.width + f - 1) / f, (in.height + f - 1) / f);
  for (int y = 0; y < out.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      for (int c = 0; c < 4; ++c) {
        double sum = 0;
        if (filter == "box") {  // the block's pixels inside the image
          int count = 0;
          for (int v = y * f; v < std::min((y + 1) * f, in.height); ++v) {
            for (int u = x * f; u < std::min((x + 1) * f, in.width); ++u, ++count) {
              sum += in.at(u, v, c);
            }
          }
          sum /= count;
        } else {  // 13 bilinear taps at source corners = 2×2 boxes (Jimenez 2014)
          auto box = [&](int dx, int dy) {  // corner (2x+1+dx, 2y+1+dy)
            const int u = 2 * x + dx, v = 2 * y + dy;
            return 0.25 * (At(in, u, v, c, border) + At(in, u + 1, v, c, border) +
                           At(in, u, v + 1, c, border) + At(in, u + 1, v + 1, c, border));
          };
          const double inner = box(-1, -1) + box(1, -1) + box(-1, 1) + box(1, 1);
          // Four overlapping 3×3-tap groups of weight 0.125 each.
          double groups = 0;
          for (int gx : {-1, 1}) {
            for (int gy : {-1, 1}) {
              groups += 0.25 * (box(0, 0) + box(2 * gx, 0) + box(0, 2 * gy) + box(2 * gx, 2 * gy));
            }
          }
          sum = 0.5 * inner / 4 + 0.125 * groups;
        }
        out.at(x, y, c) = sum;
      }
    }
  }
  return out;
}

ImageD UpsampleRef(const ImageD& in, int f, const std::string& filter, Border border,
                   const ImageD* base, double base_weight) {
  ImageD out = base ? *base : Blank(in.width * f, in.height * f);
  for (int y = 0; y < out.height; ++y) {
    for (int x = 0; x < out.width; ++x) {
      const double sx = (x + 0.5) / f - 0.5, sy = (y + 0.5) / f - 0.5;
      for (int c = 0; c < 4; ++c) {
        double v = 0;
        if (filter == "nearest") {
          v = At(in, x / f, y / f, c, border);
        } else if (filter == "bilinear") {
          v = Bilinear(in, sx, sy, c, border);
        } else {
          for (int dy = -1; dy <= 1; ++dy) {
            for (int dx = -1; dx <= 1; ++dx) {
              v += (2 - std::abs(dx)) * (2 - std::abs(dy)) / 16.0 *
                   Bilinear(in, sx + dx, sy + dy, c, border);
            }
          }
        }
        out.at(x, y, c) = (base ? base_weight * base->at(x, y, c) : 0.0) + v;
      }
    }
  }
  return out;
}

ImageD ThresholdRef(const ImageD& in, double threshold, double knee) {
  ImageD out = in;
  for (size_t p = 0; p < in.v.size(); p += 4) {
    const double l = 0.2126 * in.v[p] + 0.7152 * in.v[p + 1] + 0.0722 * in.v[p + 2];
    double soft = 0;
    if (knee > 0) {
      const double s = std::clamp(l - threshold + knee, 0.0, 2 * knee);
      soft = s * s / (4 * knee);
    }
    const double scale = l > 0 ? std::max(soft, l - threshold) / l : 0.0;
    for (int c = 0; c < 4; ++c) out.v[p + c] = in.v[p + c] * scale;
  }
  return out;
}

ImageD CompositeRef(const ImageD& a, const ImageD& b, const std::string& mode, double factor) {
  ImageD out = a;
  for (size_t i = 0; i < a.v.size(); ++i) {
    out.v[i] = mode == "add" ? a.v[i] + factor * b.v[i] : (1 - factor) * a.v[i] + factor * b.v[i];
  }
  return out;
}

ImageD DualFilterRef(const ImageD& in, int iterations, double o, Border border) {
  std::vector<ImageD> levels = {in};
  for (int k = 0; k < iterations; ++k) {  // Bjørge 2015, down: centre ×4 + 4 diagonals
    const ImageD& src = levels.back();
    ImageD dst = Blank((src.width + 1) / 2, (src.height + 1) / 2);
    for (int y = 0; y < dst.height; ++y) {
      for (int x = 0; x < dst.width; ++x) {
        const double cx = 2 * x + 0.5, cy = 2 * y + 0.5;
        for (int c = 0; c < 4; ++c) {
          double sum = 4 * Bilinear(src, cx, cy, c, border);
          for (double dx : {-o, o}) {
            for (double dy : {-o, o}) sum += Bilinear(src, cx + dx, cy + dy, c, border);
          }
          dst.at(x, y, c) = sum / 8;
        }
      }
    }
    levels.push_back(dst);
  }
  ImageD current = levels.back();
  for (int k = iterations - 1; k >= 0; --k) {  // up: 4 axis taps ×1, 4 half diagonals ×2
    ImageD dst = Blank(levels[k].width, levels[k].height);
    for (int y = 0; y < dst.height; ++y) {
      for (int x = 0; x < dst.width; ++x) {
        const double cx = (x + 0.5) / 2 - 0.5, cy = (y + 0.5) / 2 - 0.5;
        for (int c = 0; c < 4; ++c) {
          double sum = Bilinear(current, cx - o, cy, c, border) +
                       Bilinear(current, cx + o, cy, c, border) +
                       Bilinear(current, cx, cy - o, c, border) +
                       Bilinear(current, cx, cy + o, c, border);
          for (double dx : {-o / 2, o / 2}) {
            for (double dy : {-o / 2, o / 2}) sum += 2 * Bilinear(current, cx + dx, cy + dy, c, border);
          }
          dst.at(x, y, c) = sum / 12;
        }
      }
    }
    current = dst;
  }
  return current;
}

ImageD BranchLabRef(const ImageD& in) {
  ImageD out = in;
  for (size_t i = 0; i < in.v.size(); ++i) {
    if (i % 4 != 3) out.v[i] = in.v[i] * std::exp(-std::clamp(in.v[i], 0.0, 1.0));
  }
  return out;
}

}  // namespace rgfx::testing
