// The fast PNG encoder: RGBA8/RGBA16 rows filtered with SIMD and deflated
// with ISA-L or our runs coder (DeflateMethod), the rows of one image split
// into pieces compressed on several threads at once. Each piece is an
// independent run of deflate blocks ended by a full flush (byte-aligned, no
// back-references into the previous piece) and the last one ends the
// stream, so their concatenation behind one zlib header, with the pieces'
// adler32s combined, is one ordinary zlib stream: any PNG decoder reads the
// file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "absl/status/statusor.h"

namespace rgfx::service {

enum class PngRowFilter {
  kNone,
  kSub,
  kUp,
  kPaeth,
  // The smallest sum of |byte| among Sub, Up, Average and Paeth, judged on
  // every `adaptive_row_step`th row; the rows between use that row's choice.
  kAdaptive,
  kAverage,  // after kAdaptive: the fuzz target maps bytes 0..4 to the others
};

// How a piece's filtered rows are deflated.
enum class DeflateMethod {
  kIsal,  // ISA-L at FastEncodeParams::isal_level
  // Literals and byte runs with a Huffman code per block
  // (service/deflate_runs.h): several times faster than ISA-L level 1, and
  // smaller on photographs; far larger on content that repeats at longer
  // distances (text, tiles).
  kRuns,
  // Each piece's first slab (256 KiB of rows) is deflated both ways; the
  // piece goes on with whichever wrote fewer bytes. Costs the sample's
  // ISA-L pass (~4% of ISA-L on a 1080p piece) and keeps the runs coder
  // away from content where LZ77 matches matter.
  kSmallerOnSample,
};

struct FastEncodeParams {
  int isal_level = 1;  // ISA-L level 0..3
  DeflateMethod method = DeflateMethod::kIsal;
  PngRowFilter filter = PngRowFilter::kAdaptive;
  int threads = 1;  // pieces compressed at once (the calling thread is one)
  // Pieces are never smaller than this many raw bytes: each piece starts
  // with an empty history and a new Huffman table, which costs size.
  size_t min_piece_bytes = 512 << 10;
  // When every pixel is opaque, write an RGB PNG (colour type 2): a quarter
  // less to filter and deflate, and a smaller file. Every decoder gives the
  // same pixels back (alpha = max), but the file's colour type changes.
  bool opaque_as_rgb = false;
  // kAdaptive only: the filter is chosen on every Nth row of a piece (its
  // first, 1 + N-th, ...) and the N - 1 rows after it use the same one. 1
  // judges every row (the choice costs as much as filtering four times);
  // 16 costs ~25% less CPU per photograph for files within 0.4% of it,
  // still ~4% under zlib level 1 on the same rows (docs/CODEC.md).
  int adaptive_row_step = 16;
};

// Encodes tightly packed RGBA pixels (8-bit, or 16-bit little-endian when
// `sixteen_bit`) as an RGBA PNG of that depth (RGB: opaque_as_rgb).
absl::StatusOr<std::string> EncodePngFast(std::span<const std::byte> pixels, uint32_t width,
                                          uint32_t height, bool sixteen_bit,
                                          const FastEncodeParams& params);

// Deflates scanlines filtered elsewhere (the GPU: graph::PngRowsLayout):
// `height` rows of a PNG filter-type byte and 3 * width filtered bytes, as an
// 8-bit RGB PNG, in pieces on params.threads threads like EncodePngFast
// (params.filter, adaptive_row_step and opaque_as_rgb do not apply). The
// rows are read where they lie: no copy, no filtering on the CPU.
absl::StatusOr<std::string> EncodePngFilteredRgb8(std::span<const std::byte> rows, uint32_t width,
                                                  uint32_t height, const FastEncodeParams& params);

// Whether every pixel of tightly packed RGBA8 (or little-endian RGBA16 when
// `sixteen_bit`) pixels has alpha at its maximum.
bool AllOpaque(std::span<const std::byte> pixels, bool sixteen_bit);

}  // namespace rgfx::service
