// PNG row filters (PNG spec §9): undoing them when decoding and applying one
// when encoding, with SSE2 on x86-64 (a scalar version elsewhere).
//
// Sub, Average and Paeth depend on the byte `bpp` to the left, so within a
// row they run one pixel at a time; the SIMD code works on a pixel's bytes as
// lanes (libpng's approach), which is what makes 3- and 4-byte pixels fast.
// Up, and every filter when encoding, have no such chain and run 16 bytes at
// a time.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rgfx::service {

enum PngFilterType : uint8_t {
  kPngFilterNone = 0,
  kPngFilterSub = 1,
  kPngFilterUp = 2,
  kPngFilterAverage = 3,
  kPngFilterPaeth = 4,
};

// Reconstructs one row: `out[i]` from the filtered bytes `in` and the
// reconstructed row above `prev` (all zeros for the first row; never null).
// `out` must overlap neither `in` nor `prev` (the SIMD loops store a few
// bytes past the current pixel before the next one is read). `bpp` is the
// filter's byte distance, 1..8. Returns false for an unknown filter type.
bool UnfilterRow(uint8_t filter, int bpp, const uint8_t* in, const uint8_t* prev, uint8_t* out,
                 size_t row_bytes);

// Reconstructs two consecutive Paeth rows at once: row 0 from `in0` over
// `prev`, and row 1 from `in1` over row 0, which it takes from registers as
// row 0 is made. A Paeth row is one dependency chain from pixel to pixel, so
// a core idles between steps; two rows' chains interleaved keep it busy.
// Same rules as UnfilterRow for each row (`out0`, `out1`, `prev`, `in0` and
// `in1` pairwise apart). Returns false, having written nothing, where there
// is no such path (not SSE2, a bpp other than 2, 3, 4, 6 or 8, or rows
// that are not whole pixels): the caller then unfilters the rows one at a
// time.
bool UnfilterPaethRowPair(int bpp, const uint8_t* in0, const uint8_t* in1, const uint8_t* prev,
                          uint8_t* out0, uint8_t* out1, size_t row_bytes);

// Filters one row of raw bytes `row` (row above `prev`, zeros for the first
// row) with `filter` into `out`, which must not overlap either.
void FilterRow(uint8_t filter, int bpp, const uint8_t* row, const uint8_t* prev, uint8_t* out,
               size_t row_bytes);

// The sum of |byte as signed| over a filtered row: the usual heuristic for
// choosing among filters (smaller tends to compress better).
uint64_t FilteredRowCost(const uint8_t* filtered, size_t row_bytes);

// The filter among Sub, Up, Average and Paeth whose output for `row` has the
// smallest FilteredRowCost (the first of them on a tie). `scratch` (row_bytes,
// overlapping neither row) takes each candidate in turn: no allocation.
uint8_t ChooseRowFilter(int bpp, const uint8_t* row, const uint8_t* prev, uint8_t* scratch,
                        size_t row_bytes);

}  // namespace rgfx::service
