#include "tests/support/reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "passes/half_float.h"

namespace rgfx::testing {

int BorderIndex(int i, int n, Border border) {
  if (i >= 0 && i < n) return i;
  switch (border) {
    case Border::kClamp:
      return i < 0 ? 0 : n - 1;
    case Border::kWrap:
      return ((i % n) + n) % n;
    case Border::kMirror: {
      const int period = 2 * n;
      const int m = ((i % period) + period) % period;
      return m < n ? m : period - 1 - m;
    }
    case Border::kZero:
      return -1;
  }
  return -1;
}

ImageD DecodeClient(const std::vector<std::byte>& bytes, int width, int height,
                    graph::PixelFormat format) {
  ImageD image{width, height, std::vector<double>(static_cast<size_t>(width) * height * 4)};
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  for (size_t i = 0; i < image.v.size(); ++i) {
    switch (format) {
      case graph::PixelFormat::kRgba8:
        image.v[i] = p[i] / 255.0;
        break;
      case graph::PixelFormat::kRgba16:
        image.v[i] = (p[2 * i] | (p[2 * i + 1] << 8)) / 65535.0;
        break;
      case graph::PixelFormat::kRgba16F:
        image.v[i] = passes::HalfToDouble(static_cast<uint16_t>(p[2 * i] | (p[2 * i + 1] << 8)));
        break;
      case graph::PixelFormat::kRgba32F: {
        float f;
        std::memcpy(&f, p + 4 * i, 4);
        image.v[i] = f;
        break;
      }
    }
  }
  return image;
}

std::vector<std::byte> EncodeClient(const ImageD& image, graph::PixelFormat format) {
  std::vector<std::byte> out(image.v.size() * graph::BytesPerPixel(format) / 4);
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  for (size_t i = 0; i < image.v.size(); ++i) {
    const double v = image.v[i];
    switch (format) {
      case graph::PixelFormat::kRgba8:
        p[i] = static_cast<unsigned char>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
        break;
      case graph::PixelFormat::kRgba16: {
        const auto u = static_cast<uint16_t>(std::lround(std::clamp(v, 0.0, 1.0) * 65535.0));
        p[2 * i] = u & 0xff;
        p[2 * i + 1] = u >> 8;
        break;
      }
      case graph::PixelFormat::kRgba16F: {
        const uint16_t h = passes::DoubleToHalf(v);
        p[2 * i] = h & 0xff;
        p[2 * i + 1] = h >> 8;
        break;
      }
      case graph::PixelFormat::kRgba32F: {
        const float f = static_cast<float>(v);
        std::memcpy(p + 4 * i, &f, 4);
        break;
      }
    }
  }
  return out;
}

std::vector<std::byte> RandomClientImage(int width, int height, graph::PixelFormat format,
                                         bool premultiplied, std::mt19937& rng) {
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  ImageD image{width, height, std::vector<double>(static_cast<size_t>(width) * height * 4)};
  for (size_t px = 0; px < image.v.size() / 4; ++px) {
    const double a = unit(rng);
    image.v[4 * px + 3] = a;
    for (int c = 0; c < 3; ++c) image.v[4 * px + c] = premultiplied ? unit(rng) * a : unit(rng);
  }
  // Quantise through the client format, so what we return is exactly representable.
  return EncodeClient(image, format);
}

double SrgbToLinear(double c) {
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double LinearToSrgb(double c) {
  c = std::max(c, 0.0);
  return c <= 0.0031308 ? c * 12.92 : 1.055 * std::pow(c, 1.0 / 2.4) - 0.055;
}

ImageD ToWorking(const ImageD& client, bool srgb, bool straight) {
  ImageD out = client;
  for (size_t px = 0; px < out.v.size() / 4; ++px) {
    const double a = out.v[4 * px + 3];
    for (int c = 0; c < 3; ++c) {
      double v = out.v[4 * px + c];
      if (srgb) v = SrgbToLinear(v);
      if (straight) v *= a;
      out.v[4 * px + c] = v;
    }
  }
  return out;
}

ImageD FromWorking(const ImageD& working, bool srgb, bool straight) {
  ImageD out = working;
  for (size_t px = 0; px < out.v.size() / 4; ++px) {
    const double a = out.v[4 * px + 3];
    for (int c = 0; c < 3; ++c) {
      double v = out.v[4 * px + c];
      if (straight) v = a > 0 ? v / a : 0.0;
      if (srgb) v = LinearToSrgb(v);
      out.v[4 * px + c] = v;
    }
  }
  return out;
}

Border ParseBorder(const std::string& name) {
  if (name == "clamp") return Border::kClamp;
  if (name == "mirror") return Border::kMirror;
  if (name == "wrap") return Border::kWrap;
  if (name == "zero") return Border::kZero;
  throw std::invalid_argument(name);
}

ImageD BlurAxis(const ImageD& in, int radius, double sigma, Border border, bool horizontal) {
  std::vector<double> w(radius + 1);
  double total = 0;
  for (int k = 0; k <= radius; ++k) {
    w[k] = radius == 0 ? 1.0 : std::exp(-0.5 * k * k / (sigma * sigma));
    total += k == 0 ? w[k] : 2 * w[k];
  }
  ImageD out{in.width, in.height, std::vector<double>(in.v.size(), 0.0)};
  const int n = horizontal ? in.width : in.height;
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      const int pos = horizontal ? x : y;
      double sum[4] = {0, 0, 0, 0};
      for (int k = -radius; k <= radius; ++k) {
        const int i = BorderIndex(pos + k, n, border);
        if (i < 0) continue;
        const int sx = horizontal ? i : x;
        const int sy = horizontal ? y : i;
        for (int c = 0; c < 4; ++c) sum[c] += w[std::abs(k)] / total * in.at(sx, sy, c);
      }
      for (int c = 0; c < 4; ++c) out.at(x, y, c) = sum[c];
    }
  }
  return out;
}

}  // namespace rgfx::testing
