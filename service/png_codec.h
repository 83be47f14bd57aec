// PNG decode and encode, and the size checks of raw images.
//
// Two implementations behind one API: fast paths (png_fast_decode.h,
// png_fast_encode.h: ISA-L inflate/deflate, SIMD filters, one image's deflate
// split across threads) for the common cases, and libpng, the reference, for
// everything else and on request. Before either decodes, png_chunks.h walks
// the file and refuses what the PNG specification calls errors even where
// libpng would let them through (issue 10). docs/CODEC.md has the figures.
//
// Decoding is two-phase so that the pixels go straight into the memory the
// GPU upload reads from (DESIGN.md §9): ReadPngHeader checks the header
// against the pixel limit before anything is allocated and says how many
// bytes the pixels need; DecodePngInto writes them into a caller's buffer.
// Every PNG decodes to RGBA: 16-bit files to RGBA16 (little-endian, as the
// raw RGBA16 encoding), all others to RGBA8. Colour-management chunks (gAMA,
// iCCP, cHRM) are ignored: values are taken as sRGB unless the client says
// they are linear.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/image_format.h"
#include "service/png_fast_encode.h"

namespace rgfx::service {

struct PngInfo {
  uint32_t width = 0;
  uint32_t height = 0;
  int bit_depth = 0;   // as stored: 1, 2, 4, 8 or 16
  int color_type = 0;  // PNG_COLOR_TYPE_*
  bool interlaced = false;
  graph::PixelFormat format = graph::PixelFormat::kRgba8;  // what DecodePngInto writes
  uint64_t decoded_bytes = 0;  // width * height * BytesPerPixel(format)
};

// Reads the signature and the chunks up to the image data. Errors are
// InvalidArgument naming `image_name` and libpng's words (not a PNG, bad
// CRC, bad IHDR, zero width...), or ResourceExhausted when width * height
// exceeds `max_pixels`.
absl::StatusOr<PngInfo> ReadPngHeader(const std::string& image_name, std::span<const std::byte> png,
                                      uint64_t max_pixels);

struct PngDecodeOptions {
  // false: always libpng (the reference; for tests and benchmarks).
  bool allow_fast_path = true;
  // Fast path: inflate on a second thread while this one unfilters, so a
  // large image's wall time is about the larger stage, not the sum, for
  // ~1-2 ms more CPU (H100 host, 1080p photo: 16.0 instead of 20.1 ms).
  // Off by default: it only pays while cores are idle; the service turns it
  // on per request with PipelineDecode.
  bool pipelined = false;
};

// Whether a decode should be pipelined when `concurrent_stages` decodes and
// encodes (counting itself) run at once on `hardware_threads`: while at most
// half the cores are taken, the helper thread finds an idle one; beyond
// that it would only take CPU from other requests.
bool PipelineDecode(int concurrent_stages, unsigned hardware_threads);

// Threads for one PNG encode when `concurrent_stages` decodes and encodes
// (counting itself) run at once on `hardware_threads`: the cores shared out among them, at
// least 1 and at most 8 (more pieces gain little on a 1080p image and cost
// size). Under full load every encode gets one thread: splitting then only
// adds threads that wait for each other.
int EncodeThreadsByLoad(int concurrent_stages, unsigned hardware_threads);

// Decodes all of `png` (described by `info`, from ReadPngHeader on the same
// bytes) into `dst`, which must be exactly info.decoded_bytes long: tightly
// packed RGBA rows, top row first. Truncated or corrupt data, and the errors
// of the PNG specification that libpng tolerates (palette indices past the
// end of PLTE, a missing PLTE, a tRNS of the wrong size, chunks out of
// order or after IEND, too much image data), are InvalidArgument naming the
// image.
absl::Status DecodePngInto(const std::string& image_name, std::span<const std::byte> png,
                           const PngInfo& info, std::span<std::byte> dst,
                           const PngDecodeOptions& options = {});

enum class PngEncoder {
  kFast,    // ISA-L + SIMD filters, pieces on several threads (levels 1..3)
  kLibpng,  // the reference encoder (zlib)
};

struct PngEncodeOptions {
  // zlib level 0..9; 1..3 go to the fast encoder as ISA-L levels 1..3. 1 is
  // the default: on the H100 host ISA-L level 3 encodes noisy photographs
  // faster than level 1 but the smooth images a blur returns slower (the
  // service's one-caller encode 7.1 vs 5.3 ms, docs/CODEC.md), for files
  // only ~1.5% smaller; libpng's level 6 costs ~10x the time.
  int compression_level = 1;
  // Fast encoder, level 1 only: how the filtered rows are deflated. The
  // default keeps, for each piece, whichever of our runs coder and ISA-L
  // level 1 writes the piece's first slab smaller (docs/CODEC.md).
  DeflateMethod level1_deflate = DeflateMethod::kSmallerOnSample;
  // libpng encoder only. true: every row uses the SUB filter (cheap, and
  // most of the gain on photographic images); false: libpng's adaptive
  // choice among all five.
  bool single_fast_filter = true;
  // kFast serves levels 1..3 (as ISA-L levels 1..3: level 1 is smaller than
  // zlib's level 1 and ~4x faster); other levels and kLibpng use libpng.
  PngEncoder encoder = PngEncoder::kFast;
  // Fast encoder only: the row filter. Adaptive (chosen on every 16th row,
  // FastEncodeParams::adaptive_row_step) costs about what one fixed filter
  // does and gives ~5% smaller files than any one (docs/CODEC.md).
  PngRowFilter fast_filter = PngRowFilter::kAdaptive;
  // Fast encoder only: threads one image's deflate is split over; 0 means
  // min(8, hardware threads). Pieces of an image under ~512 KiB stay whole.
  int threads = 0;
  // Both encoders: an image whose alpha is all opaque is written as an RGB
  // PNG (~25% less CPU, smaller; decoders return alpha = max). Off by
  // default here because the file's colour type then depends on the pixels;
  // the service turns it on unless the request sets png_keep_alpha.
  bool opaque_as_rgb = false;
};

// Encodes tightly packed RGBA pixels, `format` kRgba8 or kRgba16
// (little-endian), as an RGBA PNG of 8 or 16 bits (or RGB: opaque_as_rgb).
absl::StatusOr<std::string> EncodePng(std::span<const std::byte> pixels, uint32_t width,
                                      uint32_t height, graph::PixelFormat format,
                                      const PngEncodeOptions& options = {});

// Whether an opaque RGBA8 image with these options may be encoded from
// scanlines filtered with the adaptive rule judged on every row (what the
// export writes on the GPU, graph::PngRowsLayout): the fast encoder, the
// adaptive filter and RGB for opaque images. The file is then the one
// EncodePng writes with FastEncodeParams::adaptive_row_step = 1.
bool EncodesFilteredRows(const PngEncodeOptions& options);

// Encodes those scanlines (`height` rows of a filter-type byte and 3 * width
// filtered bytes) as an RGB PNG: only the deflate runs on the CPU.
absl::StatusOr<std::string> EncodePngFromFilteredRows(std::span<const std::byte> rows,
                                                      uint32_t width, uint32_t height,
                                                      const PngEncodeOptions& options);

// The bytes a raw image of `format` needs, checked without overflow: zero
// sizes and a data size other than width * height * bytes-per-pixel are
// InvalidArgument naming the image; more than `max_pixels` is
// ResourceExhausted.
absl::StatusOr<uint64_t> CheckRawImage(const std::string& image_name, graph::PixelFormat format,
                                       uint32_t width, uint32_t height, uint64_t data_bytes,
                                       uint64_t max_pixels);

// Width * height against the limit, for any image (shared by PNG and raw).
absl::Status CheckPixelLimit(const std::string& image_name, uint32_t width, uint32_t height,
                             uint64_t max_pixels);

}  // namespace rgfx::service
