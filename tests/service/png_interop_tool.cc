// Helper for png_interop_test.py: writes PNGs with the fast encoder beside
// the raw pixels they hold, and decodes PNGs with the service's decoder, so
// Python (Pillow, OpenCV) can check both directions.
//
//   png_interop_tool write DIR        -> DIR/NAME.png + DIR/NAME.raw, and
//                                        prints "NAME WIDTH HEIGHT DEPTH" lines
//   png_interop_tool decode IN OUT    -> OUT: RGBA8 or RGBA16LE pixels; prints
//                                        "WIDTH HEIGHT DEPTH"
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "service/png_codec.h"
#include "service/png_fast_encode.h"

namespace {

using rgfx::service::DeflateMethod;
using rgfx::service::PngRowFilter;

std::vector<std::byte> Pixels(uint32_t width, uint32_t height, bool sixteen, uint32_t seed) {
  std::mt19937 rng(seed);
  const size_t bytes = sixteen ? 2 : 1;
  std::vector<std::byte> out(size_t{width} * height * 4 * bytes);
  for (size_t i = 0; i < out.size() / bytes; ++i) {
    const size_t x = (i / 4) % width, y = (i / 4) / width;
    // A gradient plus noise: filters and matches both matter.
    const uint32_t v = static_cast<uint32_t>(x * 5 + y * 3 + (i % 4) * 50) + rng() % 9;
    if (sixteen) {
      const uint32_t v16 = (v * 97 + rng() % 5) & 0xffff;
      out[i * 2] = std::byte(v16 & 0xff);
      out[i * 2 + 1] = std::byte(v16 >> 8);
    } else {
      out[i] = std::byte(v & 0xff);
    }
  }
  return out;
}

int Write(const std::string& dir) {
  struct Case {
    const char* name;
    bool sixteen;
    PngRowFilter filter;
    int threads;
    int level;
    bool opaque_as_rgb = false;
    DeflateMethod method = DeflateMethod::kIsal;
  } cases[] = {
      {"rgba8_paeth_1t", false, PngRowFilter::kPaeth, 1, 1},
      {"rgba8_sub_4t", false, PngRowFilter::kSub, 4, 1},
      {"rgba8_adaptive_8t", false, PngRowFilter::kAdaptive, 8, 1},
      {"rgba8_up_3t_level3", false, PngRowFilter::kUp, 3, 3},
      {"rgba16_paeth_1t", true, PngRowFilter::kPaeth, 1, 1},
      {"rgba16_adaptive_5t", true, PngRowFilter::kAdaptive, 5, 2},
      {"opaque8_as_rgb_4t", false, PngRowFilter::kAdaptive, 4, 1, true},
      {"opaque16_as_rgb_2t", true, PngRowFilter::kAdaptive, 2, 1, true},
      // Our own deflate coder (service/deflate_runs.h), and the default's
      // choice between it and ISA-L.
      {"rgba8_runs_3t", false, PngRowFilter::kAdaptive, 3, 1, false, DeflateMethod::kRuns},
      {"rgba16_runs_1t", true, PngRowFilter::kPaeth, 1, 1, false, DeflateMethod::kRuns},
      {"opaque8_as_rgb_sampled_4t", false, PngRowFilter::kAdaptive, 4, 1, true,
       DeflateMethod::kSmallerOnSample},
  };
  uint32_t seed = 1;
  for (const Case& c : cases) {
    const uint32_t width = 211, height = 157;
    std::vector<std::byte> pixels = Pixels(width, height, c.sixteen, seed++);
    if (c.opaque_as_rgb) {  // alpha at its maximum everywhere: written as RGB
      const size_t bytes = c.sixteen ? 2 : 1;
      for (size_t p = 0; p < size_t{width} * height; ++p) {
        for (size_t b = 0; b < bytes; ++b) pixels[(p * 4 + 3) * bytes + b] = std::byte{0xff};
      }
    }
    // Pieces of any size, so that even this image is split c.threads ways.
    absl::StatusOr<std::string> png = rgfx::service::EncodePngFast(
        pixels, width, height, c.sixteen,
        {.isal_level = c.level,
         .method = c.method,
         .filter = c.filter,
         .threads = c.threads,
         .min_piece_bytes = 1,
         .opaque_as_rgb = c.opaque_as_rgb});
    if (!png.ok()) {
      std::fprintf(stderr, "%s: %s\n", c.name, png.status().ToString().c_str());
      return 1;
    }
    std::ofstream(dir + "/" + c.name + ".png", std::ios::binary) << *png;
    std::ofstream(dir + "/" + c.name + ".raw", std::ios::binary)
        .write(reinterpret_cast<const char*>(pixels.data()), std::streamsize(pixels.size()));
    std::printf("%s %u %u %d\n", c.name, width, height, c.sixteen ? 16 : 8);
  }
  return 0;
}

int Decode(const std::string& in, const std::string& out) {
  std::ifstream file(in, std::ios::binary);
  std::stringstream buffer;
  buffer << file.rdbuf();
  const std::string png = buffer.str();
  const auto bytes = std::as_bytes(std::span<const char>(png.data(), png.size()));
  absl::StatusOr<rgfx::service::PngInfo> info = rgfx::service::ReadPngHeader(in, bytes, 1 << 26);
  if (!info.ok()) {
    std::fprintf(stderr, "%s\n", info.status().ToString().c_str());
    return 1;
  }
  std::vector<std::byte> pixels(info->decoded_bytes);
  if (absl::Status s = rgfx::service::DecodePngInto(in, bytes, *info, pixels); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  std::ofstream(out, std::ios::binary)
      .write(reinterpret_cast<const char*>(pixels.data()), std::streamsize(pixels.size()));
  std::printf("%u %u %d\n", info->width, info->height,
              info->format == rgfx::graph::PixelFormat::kRgba16 ? 16 : 8);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "write") return Write(argv[2]);
  if (argc == 4 && std::string(argv[1]) == "decode") return Decode(argv[2], argv[3]);
  std::fprintf(stderr, "usage: %s write DIR | decode IN.png OUT.raw\n", argv[0]);
  return 2;
}
