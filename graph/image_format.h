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

// An RGBA8 output whose export also writes its PNG scanlines (OutputDesc::
// png_rows): the service deflates those rows as they are, so the CPU neither
// filters nor repacks. One buffer holds, each part at a 256-byte boundary (the
// largest storage-buffer offset alignment Vulkan allows, so each part binds
// on its own): the RGBA8 pixels; `height` rows of a PNG filter-type byte and
// the row's RGB bytes filtered with it; one 32-bit word per row, 1 when every
// pixel of that row is opaque (an RGB PNG needs every row opaque; otherwise
// the encoder falls back to the pixels).
struct PngRowsLayout {
  uint64_t pixel_bytes = 0;
  uint64_t rows_offset = 0;
  uint64_t row_stride = 0;  // 1 + 3 * width
  uint64_t flags_offset = 0;
  uint64_t total_bytes = 0;
};
PngRowsLayout PngRowsLayoutOf(Extent extent);

}  // namespace rgfx::graph
