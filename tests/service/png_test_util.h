// Writes PNGs of every colour type and bit depth with libpng, and computes
// the RGBA pixels a decoder must produce from them, so codec tests (and the
// end-to-end tests) check decoding against an independent expectation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rgfx::testing {

struct PngSpec {
  uint32_t width = 7;
  uint32_t height = 5;
  int color_type = 0;  // PNG_COLOR_TYPE_*
  int bit_depth = 8;
  bool interlaced = false;
  bool trns = false;   // add a tRNS chunk (grey, RGB, palette)
  uint32_t seed = 1;
  int filters = 0;     // PNG_FILTER_* mask for libpng's writer; 0: its default
  bool smooth = false;  // gradients instead of noise (so filters matter)
};

struct TestPng {
  std::string file;                // the PNG bytes
  std::vector<std::byte> expected;  // RGBA8, or RGBA16 little-endian for 16-bit files
  bool sixteen_bit = false;
};

// Makes a PNG with deterministic pseudo-random content.
TestPng MakeTestPng(const PngSpec& spec);

// Every (colour type, bit depth) pair PNG allows, with and without tRNS
// where it applies, plus interlaced versions of a few.
std::vector<PngSpec> AllPngKinds();
std::string PngSpecName(const PngSpec& spec);

// Rewrites chunk `type`'s CRC after the caller edited its data (so tests can
// make a bad IHDR that is not merely a CRC error). Returns false if absent.
bool FixChunkCrc(std::string& png, const char type[4]);
// Offset of chunk `type`'s data, or npos.
size_t ChunkDataOffset(const std::string& png, const char type[4]);

// Hand-made PNGs for the cases no encoder writes (errors of the spec).
struct RawChunk {
  std::string type;  // 4 letters
  std::string data;
};
// The signature, then the chunks with correct lengths and CRCs.
std::string BuildPng(const std::vector<RawChunk>& chunks);
// IHDR data (13 bytes).
std::string IhdrData(uint32_t width, uint32_t height, int bit_depth, int color_type,
                     bool interlaced = false);
// A zlib stream of `raw` (the filtered rows) at `level`.
std::string ZlibCompress(const std::string& raw, int level = 6);
// The concatenated IDAT data of a PNG, inflated with zlib (which verifies the
// adler32); empty if the stream is not valid zlib.
std::string InflateIdat(const std::string& png, bool* ok);

}  // namespace rgfx::testing
