// The fast PNG decoder for the common cases: 8- and 16-bit greyscale,
// grey+alpha, RGB and RGBA, not interlaced, without tRNS. It inflates the
// IDAT pieces with ISA-L (docs/CODEC.md says why ISA-L and not libdeflate),
// a few hundred kilobytes at a time so the rows are still in cache when they
// are unfiltered (SIMD, png_filters.h) and expanded straight into the
// caller's RGBA buffer. Everything else goes to libpng (png_codec.cc).
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "service/png_chunks.h"

namespace rgfx::service {

// True when DecodePngFast handles images with these chunks.
bool FastDecodeSupports(const PngChunks& chunks);

// Decodes into `dst`: width * height RGBA8 pixels (8-bit files) or RGBA16
// little-endian (16-bit files), top row first; the bytes libpng would give.
// Corrupt or truncated data, too much image data, and bytes after the zlib
// stream are InvalidArgument naming the image. `pipelined`: inflate on a
// helper thread while the calling thread unfilters (images of 3 slabs of
// 256 KiB or more), for latency; the same CPU time, the same results.
absl::Status DecodePngFast(const std::string& image_name, const PngChunks& chunks,
                           std::span<std::byte> dst, bool pipelined);

// For images libpng decodes: inflates the IDAT data (discarding it) and
// checks the zlib header and that the stream ends exactly where the IDAT
// data does. libpng skips IDAT chunks after the end of the stream without a
// word; the fast path refuses them, and this makes the libpng path agree.
absl::Status CheckIdatStreamEnd(const std::string& image_name, const PngChunks& chunks);

}  // namespace rgfx::service
