// Pixel formats, colour spaces and alpha modes of the images a graph imports
// and exports. Inside the graph every resource is in the working format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rgfx::graph {

enum class PixelFormat { kRgba8, kRgba16, kRgba16F, kRgba32F };
enum class ColorSpace { kSrgb, kLinear };
enum class AlphaMode { kStraight, kPremultiplied };

size_t BytesPerPixel(PixelFormat format);
std::string_view PixelFormatName(PixelFormat format);  // "RGBA8", ...
std::optional<PixelFormat> ParsePixelFormat(std::string_view name);
bool IsFloatFormat(PixelFormat format);
std::string_view ColorSpaceName(ColorSpace space);  // "srgb" / "linear"
std::string_view AlphaModeName(AlphaMode mode);     // "straight" / "premultiplied"

// Working formats are the float ones: RGBA16F (default) and RGBA32F.
bool IsWorkingFormat(PixelFormat format);

struct Extent {
  uint32_t width = 0;
  uint32_t height = 0;
  uint64_t pixels() const { return uint64_t{width} * height; }
  bool operator==(const Extent&) const = default;
};

}  // namespace rgfx::graph
