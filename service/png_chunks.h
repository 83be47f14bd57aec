// Walks a PNG's chunks (PNG spec §5) without decoding pixels: checks every
// CRC, the chunk order and the sizes the specification fixes, and collects
// what a decoder needs (IHDR fields, PLTE, tRNS, the IDAT pieces in order).
//
// This is where the service is stricter than libpng (issue 10): libpng lets
// several errors of the specification through with a warning or silently
// (a PLTE in a greyscale image, a tRNS of the wrong length, IDAT chunks that
// are not consecutive, chunks after IEND). Every decode walks the chunks
// first, whichever decoder then runs, so both refuse the same files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rgfx::service {

struct PngChunks {
  uint32_t width = 0;
  uint32_t height = 0;
  int bit_depth = 0;
  int color_type = 0;  // 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA
  bool interlaced = false;
  std::span<const uint8_t> palette;  // PLTE data, 3 bytes per entry; empty if none
  std::span<const uint8_t> trns;     // tRNS data; empty if none (or skipped: bad CRC)
  std::vector<std::span<const uint8_t>> idat;  // in file order
  uint64_t idat_bytes = 0;
};

// Channels per pixel of a PNG colour type (1 for palette indices).
int PngChannels(int color_type);

// Errors are InvalidArgument naming `image_name` and the offending chunk.
// Ancillary chunks with a bad CRC are skipped, as libpng does (the spec lets
// a decoder ignore them); a bad CRC on a critical chunk is an error.
absl::StatusOr<PngChunks> ParsePngChunks(const std::string& image_name,
                                         std::span<const std::byte> png);

// The CRC-32 of PNG chunks (and gzip), computed with ISA-L's folding code.
uint32_t PngCrc32(uint32_t crc, const uint8_t* data, size_t size);

}  // namespace rgfx::service
