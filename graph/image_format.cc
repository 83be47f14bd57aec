#include "graph/image_format.h"

namespace rgfx::graph {

size_t BytesPerPixel(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRgba8:
      return 4;
    case PixelFormat::kRgba16:
    case PixelFormat::kRgba16F:
      return 8;
    case PixelFormat::kRgba32F:
      return 16;
  }
  return 0;
}

std::string_view PixelFormatName(PixelFormat format) {
  switch (format) {
    case PixelFormat::kRgba8:
      return "RGBA8";
    case PixelFormat::kRgba16:
      return "RGBA16";
    case PixelFormat::kRgba16F:
      return "RGBA16F";
    case PixelFormat::kRgba32F:
      return "RGBA32F";
  }
  return "UNKNOWN";
}

std::optional<PixelFormat> ParsePixelFormat(std::string_view name) {
  // Case-insensitive so the canonical "RGBA16F" and the parameter spelling
  // "rgba16f" both parse.
  for (PixelFormat format :
       {PixelFormat::kRgba8, PixelFormat::kRgba16, PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    const std::string_view canonical = PixelFormatName(format);
    if (canonical.size() != name.size()) continue;
    bool equal = true;
    for (size_t i = 0; i < name.size() && equal; ++i) {
      const char c = name[i];
      equal = (c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c) == canonical[i];
    }
    if (equal) return format;
  }
  return std::nullopt;
}

bool IsFloatFormat(PixelFormat format) {
  return format == PixelFormat::kRgba16F || format == PixelFormat::kRgba32F;
}

std::string_view ColorSpaceName(ColorSpace space) {
  return space == ColorSpace::kSrgb ? "srgb" : "linear";
}

std::string_view AlphaModeName(AlphaMode mode) {
  return mode == AlphaMode::kStraight ? "straight" : "premultiplied";
}

bool IsWorkingFormat(PixelFormat format) { return IsFloatFormat(format); }

PngRowsLayout PngRowsLayoutOf(Extent extent) {
  auto align = [](uint64_t v) { return (v + 255) / 256 * 256; };
  PngRowsLayout layout;
  layout.pixel_bytes = extent.pixels() * 4;
  layout.rows_offset = align(layout.pixel_bytes);
  layout.row_stride = 1 + 3 * uint64_t{extent.width};
  layout.flags_offset = align(layout.rows_offset + layout.row_stride * extent.height);
  layout.total_bytes = layout.flags_offset + 4 * uint64_t{extent.height};
  return layout;
}

}  // namespace rgfx::graph
