// The CPU's version of the scanlines the export writes on the GPU
// (graph::PngRowsLayout, passes/shaders/png_rows.comp): each row of an RGBA8
// image without its alpha, filtered with the fast encoder's adaptive rule
// judged on that row, behind its filter-type byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "service/png_filters.h"

namespace rgfx::testing {

inline std::vector<std::byte> FilterRowsRgb8(std::span<const std::byte> rgba, uint32_t width,
                                             uint32_t height) {
  const size_t n = size_t{width} * 3;
  std::vector<uint8_t> row(n), prev(n, 0), scratch(n);
  std::vector<std::byte> out((n + 1) * height);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      std::memcpy(&row[3 * size_t{x}], &rgba[(size_t{y} * width + x) * 4], 3);
    }
    auto* dst = reinterpret_cast<uint8_t*>(&out[(n + 1) * y]);
    dst[0] = service::ChooseRowFilter(3, row.data(), prev.data(), scratch.data(), n);
    service::FilterRow(dst[0], 3, row.data(), prev.data(), dst + 1, n);
    prev.swap(row);
  }
  return out;
}

}  // namespace rgfx::testing
