// The fast PNG paths against libpng: every colour type and depth decoded by
// both gives the same pixels; the fast encoder's files (one thread or many)
// decode with libpng to the input and hold one valid zlib stream; corrupt
// and malformed inputs are refused the same way by both decoders.
#include <png.h>

#include <random>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "service/png_chunks.h"
#include "service/png_codec.h"
#include "service/png_fast_decode.h"
#include "service/png_fast_encode.h"
#include "service/png_filters.h"
#include "tests/service/png_rows_reference.h"
#include "tests/service/png_test_util.h"

namespace rgfx::service {
namespace {

using ::testing::HasSubstr;
using testing::MakeTestPng;
using testing::PngSpec;

constexpr uint64_t kMaxPixels = 64ull << 20;

std::span<const std::byte> AsBytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

absl::StatusOr<std::vector<std::byte>> Decode(const std::string& png, bool fast) {
  absl::StatusOr<PngInfo> info = ReadPngHeader("photo", AsBytes(png), kMaxPixels);
  if (!info.ok()) return info.status();
  std::vector<std::byte> pixels(info->decoded_bytes);
  if (absl::Status s = DecodePngInto("photo", AsBytes(png), *info, pixels,
                                     {.allow_fast_path = fast});
      !s.ok()) {
    return s;
  }
  return pixels;
}

bool TakesFastPath(const std::string& png) {
  absl::StatusOr<PngChunks> chunks = ParsePngChunks("photo", AsBytes(png));
  return chunks.ok() && FastDecodeSupports(*chunks);
}

// ---- Decoding: fast path == libpng == the independent expectation --------

struct DecodeCase {
  int color_type;
  int bit_depth;
  uint32_t width;
  uint32_t height;
  int filters;  // libpng's PNG_FILTER_* mask
};

std::string Name(const DecodeCase& c) {
  const char* type = c.color_type == 0 ? "Gray" : c.color_type == 2 ? "Rgb"
                     : c.color_type == 4 ? "GrayAlpha" : "Rgba";
  const char* filter = c.filters == PNG_FILTER_NONE ? "None" : c.filters == PNG_FILTER_SUB ? "Sub"
                       : c.filters == PNG_FILTER_UP ? "Up" : c.filters == PNG_FILTER_AVG ? "Avg"
                       : c.filters == PNG_FILTER_PAETH ? "Paeth" : "All";
  return absl::StrCat(type, c.bit_depth, "_", c.width, "x", c.height, "_", filter);
}

std::vector<DecodeCase> DecodeCases() {
  std::vector<DecodeCase> cases;
  for (int type : {0, 2, 4, 6}) {
    for (int depth : {8, 16}) {
      for (int filters : {PNG_FILTER_NONE, PNG_FILTER_SUB, PNG_FILTER_UP, PNG_FILTER_AVG,
                          PNG_FILTER_PAETH, PNG_ALL_FILTERS}) {
        cases.push_back({type, depth, 13, 7, filters});
      }
      // Wide enough for several inflate slabs and every SIMD loop's tail.
      cases.push_back({type, depth, 2003, 71, PNG_ALL_FILTERS});
      cases.push_back({type, depth, 1, 3, PNG_ALL_FILTERS});
    }
  }
  return cases;
}

class FastDecode : public ::testing::TestWithParam<DecodeCase> {};

TEST_P(FastDecode, EqualsLibpngAndExpectation) {
  const DecodeCase& c = GetParam();
  for (bool smooth : {false, true}) {
    PngSpec spec;
    spec.color_type = c.color_type;
    spec.bit_depth = c.bit_depth;
    spec.width = c.width;
    spec.height = c.height;
    spec.filters = c.filters;
    spec.smooth = smooth;
    const testing::TestPng png = MakeTestPng(spec);
    ASSERT_TRUE(TakesFastPath(png.file));
    absl::StatusOr<std::vector<std::byte>> fast = Decode(png.file, true);
    absl::StatusOr<std::vector<std::byte>> reference = Decode(png.file, false);
    ASSERT_TRUE(fast.ok()) << fast.status();
    ASSERT_TRUE(reference.ok()) << reference.status();
    EXPECT_EQ(*fast, *reference) << "smooth " << smooth;
    EXPECT_EQ(*fast, png.expected) << "smooth " << smooth;
  }
}

INSTANTIATE_TEST_SUITE_P(TypesDepthsFilters, FastDecode, ::testing::ValuesIn(DecodeCases()),
                         [](const auto& info) { return Name(info.param); });

TEST(FastDecode, OtherKindsGoToLibpngAndStillDecode) {
  for (const PngSpec& spec : testing::AllPngKinds()) {
    const testing::TestPng png = MakeTestPng(spec);
    const bool expect_fast = !spec.interlaced && !spec.trns && spec.bit_depth >= 8 &&
                             spec.color_type != PNG_COLOR_TYPE_PALETTE;
    EXPECT_EQ(TakesFastPath(png.file), expect_fast) << testing::PngSpecName(spec);
    absl::StatusOr<std::vector<std::byte>> pixels = Decode(png.file, true);
    ASSERT_TRUE(pixels.ok()) << testing::PngSpecName(spec) << pixels.status();
    EXPECT_EQ(*pixels, png.expected) << testing::PngSpecName(spec);
  }
}

// ---- Encoding ------------------------------------------------------------

std::vector<std::byte> PhotoLike(uint32_t width, uint32_t height, bool sixteen, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.f, 2.f);
  const int bytes = sixteen ? 2 : 1;
  std::vector<std::byte> pixels(size_t{width} * height * 4 * bytes);
  for (uint32_t y = 0; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      for (int c = 0; c < 4; ++c) {
        const float v = c == 3 ? 200.f + x % 7
                               : 128.f + 60.f * std::sin(x * 0.01f * (c + 1)) +
                                     40.f * std::cos(y * 0.013f) + noise(rng);
        const float clamped = std::clamp(v, 0.f, 255.f);
        const uint32_t value = sixteen ? std::min<uint32_t>(65535u, uint32_t(clamped * 257.f) + rng() % 7)
                                       : uint32_t(clamped);
        const size_t i = ((size_t{y} * width + x) * 4 + c) * bytes;
        pixels[i] = std::byte(value & 0xff);
        if (sixteen) pixels[i + 1] = std::byte(value >> 8);
      }
    }
  }
  return pixels;
}

struct EncodeCase {
  bool sixteen;
  PngRowFilter filter;
  int level;
  DeflateMethod method = DeflateMethod::kIsal;
};

class FastEncode : public ::testing::TestWithParam<EncodeCase> {};

TEST_P(FastEncode, LibpngDecodesTheInputForAnyThreadCount) {
  const EncodeCase& c = GetParam();
  const uint32_t width = 301, height = 97;
  const std::vector<std::byte> pixels = PhotoLike(width, height, c.sixteen, 7);
  std::string single;
  for (int threads : {1, 2, 3, 8}) {
    // Small pieces so that even this image is split `threads` ways.
    absl::StatusOr<std::string> png = EncodePngFast(
        pixels, width, height, c.sixteen,
        {.isal_level = c.level,
         .method = c.method,
         .filter = c.filter,
         .threads = threads,
         .min_piece_bytes = 1});
    ASSERT_TRUE(png.ok()) << png.status();
    absl::StatusOr<PngChunks> chunks = ParsePngChunks("out", AsBytes(*png));
    ASSERT_TRUE(chunks.ok()) << chunks.status();
    EXPECT_EQ(chunks->idat.size(), size_t(threads));  // one IDAT per piece
    bool zlib_ok = false;
    const std::string filtered = testing::InflateIdat(*png, &zlib_ok);
    EXPECT_TRUE(zlib_ok) << "not one valid zlib stream, threads " << threads;
    EXPECT_EQ(filtered.size(), size_t{height} * (1 + width * (c.sixteen ? 8 : 4)));
    absl::StatusOr<std::vector<std::byte>> by_libpng = Decode(*png, false);
    ASSERT_TRUE(by_libpng.ok()) << by_libpng.status();
    EXPECT_EQ(*by_libpng, pixels) << "threads " << threads;
    absl::StatusOr<std::vector<std::byte>> by_fast = Decode(*png, true);
    ASSERT_TRUE(by_fast.ok()) << by_fast.status();
    EXPECT_EQ(*by_fast, pixels) << "threads " << threads;
    if (threads == 1) single = *png;
  }
  EXPECT_FALSE(single.empty());
}

std::vector<EncodeCase> EncodeCases() {
  std::vector<EncodeCase> cases;
  for (bool sixteen : {false, true}) {
    for (PngRowFilter f : {PngRowFilter::kNone, PngRowFilter::kSub, PngRowFilter::kUp,
                           PngRowFilter::kPaeth, PngRowFilter::kAverage,
                           PngRowFilter::kAdaptive}) {
      cases.push_back({sixteen, f, 1});
    }
    cases.push_back({sixteen, PngRowFilter::kPaeth, 0});
    cases.push_back({sixteen, PngRowFilter::kPaeth, 2});
    cases.push_back({sixteen, PngRowFilter::kPaeth, 3});
    for (PngRowFilter f : {PngRowFilter::kNone, PngRowFilter::kPaeth, PngRowFilter::kAdaptive}) {
      cases.push_back({sixteen, f, 1, DeflateMethod::kRuns});
      cases.push_back({sixteen, f, 1, DeflateMethod::kSmallerOnSample});
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(DepthsFiltersLevels, FastEncode, ::testing::ValuesIn(EncodeCases()));

TEST(FastEncode, DefaultOptionsUseTheFastPathAndDecode) {
  const uint32_t width = 640, height = 480;  // 1.2 MB: split into 2 pieces or more
  const std::vector<std::byte> pixels = PhotoLike(width, height, false, 3);
  absl::StatusOr<std::string> fast = EncodePng(pixels, width, height, graph::PixelFormat::kRgba8);
  absl::StatusOr<std::string> reference =
      EncodePng(pixels, width, height, graph::PixelFormat::kRgba8,
                {.compression_level = 1, .encoder = PngEncoder::kLibpng});
  ASSERT_TRUE(fast.ok() && reference.ok());
  EXPECT_NE(*fast, *reference);  // different encoders, different bytes...
  EXPECT_EQ(*Decode(*fast, false), pixels);  // ...the same pixels
  EXPECT_EQ(*Decode(*reference, true), pixels);
}

TEST(FastEncode, OpaqueImagesAsRgb) {
  for (bool sixteen : {false, true}) {
    const uint32_t width = 123, height = 45;
    std::vector<std::byte> pixels = PhotoLike(width, height, sixteen, 11);
    const size_t bytes = sixteen ? 2 : 1;
    for (size_t p = 0; p < size_t{width} * height; ++p) {
      for (size_t b = 0; b < bytes; ++b) pixels[(p * 4 + 3) * bytes + b] = std::byte{0xff};
    }
    for (bool opaque : {true, false}) {
      if (!opaque) pixels[(size_t{width} * 30 + 7) * 4 * bytes + 3 * bytes] = std::byte{0x10};
      EXPECT_EQ(AllOpaque(pixels, sixteen), opaque);
      // The fast encoder (level 1) and libpng (level 6, and forced) alike.
      for (const PngEncodeOptions& options :
           {PngEncodeOptions{.threads = 3, .opaque_as_rgb = true},
            PngEncodeOptions{.compression_level = 6, .opaque_as_rgb = true},
            PngEncodeOptions{.encoder = PngEncoder::kLibpng, .opaque_as_rgb = true}}) {
        absl::StatusOr<std::string> png = EncodePng(
            pixels, width, height,
            sixteen ? graph::PixelFormat::kRgba16 : graph::PixelFormat::kRgba8, options);
        ASSERT_TRUE(png.ok()) << png.status();
        absl::StatusOr<PngChunks> chunks = ParsePngChunks("out", AsBytes(*png));
        ASSERT_TRUE(chunks.ok());
        EXPECT_EQ(chunks->color_type, opaque ? 2 : 6) << sixteen << options.compression_level;
        EXPECT_EQ(*Decode(*png, false), pixels) << sixteen << opaque;
        EXPECT_EQ(*Decode(*png, true), pixels) << sixteen << opaque;
      }
    }
  }
}

// Scanlines filtered elsewhere (the GPU's export) are deflated as they lie:
// the file is the one EncodePngFast writes judging every row, byte for byte,
// whether one piece or several.
TEST(FastEncode, FilteredRowsGiveTheEveryRowAdaptiveFile) {
  struct Size {
    uint32_t width, height;
  };
  for (const Size size : {Size{1, 1}, Size{7, 3}, Size{301, 97}, Size{640, 480}}) {
    std::vector<std::byte> pixels = PhotoLike(size.width, size.height, false, size.width);
    for (size_t p = 0; p < size_t{size.width} * size.height; ++p) pixels[p * 4 + 3] = std::byte{0xff};
    const std::vector<std::byte> rows = testing::FilterRowsRgb8(pixels, size.width, size.height);
    for (int threads : {1, 3}) {
      SCOPED_TRACE(::testing::Message() << size.width << "x" << size.height << ", " << threads);
      const FastEncodeParams params{
          .threads = threads, .min_piece_bytes = 64 << 10, .opaque_as_rgb = true,
          .adaptive_row_step = 1};
      absl::StatusOr<std::string> reference =
          EncodePngFast(pixels, size.width, size.height, false, params);
      absl::StatusOr<std::string> from_rows =
          EncodePngFilteredRgb8(rows, size.width, size.height, params);
      ASSERT_TRUE(reference.ok() && from_rows.ok()) << from_rows.status();
      EXPECT_EQ(*from_rows, *reference);
      EXPECT_EQ(*Decode(*from_rows, true), pixels);
    }
  }
}

TEST(FastEncode, FilteredRowsAreCheckedBeforeDeflating) {
  const uint32_t width = 5, height = 4;
  std::vector<std::byte> rows((3 * width + 1) * height, std::byte{0});
  EXPECT_TRUE(EncodePngFilteredRgb8(rows, width, height, {}).ok());
  EXPECT_FALSE(EncodePngFilteredRgb8(std::span(rows).first(rows.size() - 1), width, height, {}).ok());
  EXPECT_FALSE(EncodePngFilteredRgb8(rows, 0, height, {}).ok());
  rows[(3 * width + 1) * 2] = std::byte{5};  // no such filter type
  absl::StatusOr<std::string> png = EncodePngFilteredRgb8(rows, width, height, {});
  ASSERT_FALSE(png.ok());
  EXPECT_THAT(png.status().message(), ::testing::HasSubstr("row 2 has filter type 5"));
}

// ChooseRowFilter picks what filtering the row four ways and comparing
// FilteredRowCost picks, first minimum on ties.
TEST(FastEncode, ChooseRowFilterIsTheFourWayChoice) {
  std::mt19937 rng(5);
  for (int bpp : {3, 4, 6, 8}) {
    for (size_t pixels : {1u, 2u, 5u, 6u, 17u, 640u}) {
      const size_t n = pixels * size_t(bpp);
      for (int trial = 0; trial < 40; ++trial) {
        std::vector<uint8_t> row(n), prev(n), out(n);
        // Smooth, noisy, flat and repeated rows, so every filter wins some.
        const int kind = trial % 4;
        for (size_t i = 0; i < n; ++i) {
          const uint8_t smooth = uint8_t(i / size_t(bpp) * (trial + 1) + i % size_t(bpp) * 40);
          prev[i] = kind == 1 ? uint8_t(rng()) : smooth;
          row[i] = kind == 0 ? uint8_t(smooth + rng() % 3)
                   : kind == 1 ? uint8_t(prev[i] + rng() % 5)
                   : kind == 2 ? uint8_t(7 * (trial + 1))
                               : uint8_t(rng());
        }
        uint64_t best_cost = ~uint64_t{0};
        uint8_t best = 0;
        for (uint8_t f : {kPngFilterSub, kPngFilterUp, kPngFilterAverage, kPngFilterPaeth}) {
          FilterRow(f, bpp, row.data(), prev.data(), out.data(), n);
          const uint64_t cost = FilteredRowCost(out.data(), n);
          if (cost < best_cost) {
            best_cost = cost;
            best = f;
          }
        }
        std::vector<uint8_t> scratch(n);
        EXPECT_EQ(ChooseRowFilter(bpp, row.data(), prev.data(), scratch.data(), n), best)
            << "bpp " << bpp << " bytes " << n << " trial " << trial;
      }
    }
  }
}

// A pair of Paeth rows unfiltered at once equals the two rows one at a
// time, for every pixel size with a pair path and every tail length, on
// random bytes (every branch of the predictor, ties included, and values
// that wrap).
TEST(FastDecode, PaethRowPairEqualsTwoSingleRows) {
  std::mt19937 rng(11);
  for (int bpp : {2, 3, 4, 6, 8}) {
    for (size_t pixels : {1u, 2u, 3u, 5u, 16u, 17u, 641u}) {
      const size_t n = pixels * size_t(bpp);
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<uint8_t> in0(n), in1(n), prev(n);
        // Small residuals over smooth rows half the time (ties are common
        // there), uniform bytes otherwise.
        for (size_t i = 0; i < n; ++i) {
          const bool smooth = trial % 2 == 0;
          prev[i] = smooth ? uint8_t(i / size_t(bpp) * 3 + i % size_t(bpp)) : uint8_t(rng());
          in0[i] = smooth ? uint8_t(rng() % 3) : uint8_t(rng());
          in1[i] = smooth ? uint8_t(rng() % 3) : uint8_t(rng());
        }
        std::vector<uint8_t> want0(n), want1(n), got0(n), got1(n);
        ASSERT_TRUE(UnfilterRow(kPngFilterPaeth, bpp, in0.data(), prev.data(), want0.data(), n));
        ASSERT_TRUE(UnfilterRow(kPngFilterPaeth, bpp, in1.data(), want0.data(), want1.data(), n));
        if (!UnfilterPaethRowPair(bpp, in0.data(), in1.data(), prev.data(), got0.data(),
                                  got1.data(), n)) {
          GTEST_SKIP() << "no SIMD pair path on this machine (the decoder unfilters "
                          "one row at a time there)";
        }
        EXPECT_EQ(got0, want0) << "bpp " << bpp << " bytes " << n << " trial " << trial;
        EXPECT_EQ(got1, want1) << "bpp " << bpp << " bytes " << n << " trial " << trial;
      }
    }
  }
  // bpp 1 (8-bit gray) has no pair path: the caller must go row by row.
  uint8_t in[4] = {1, 2, 3, 4}, prev[4] = {}, out0[4], out1[4];
  EXPECT_FALSE(UnfilterPaethRowPair(1, in, in, prev, out0, out1, 4));
}

// The default (adaptive, judged on every 16th row): the pixels come back,
// each band of 16 rows has one filter, and the file is no larger than zlib
// level 1 makes of the very rows it filtered, nor than judging every row
// gives by more than 1%.
TEST(FastEncode, DefaultAdaptiveStepRoundTripsAndStaysUnderZlibLevel1) {
  const uint32_t width = 640, height = 480;
  std::vector<std::byte> pixels = PhotoLike(width, height, false, 9);
  // The lower third flat panels and hard edges (a screenshot's content), so
  // that the choice differs between bands.
  for (uint32_t y = 2 * height / 3; y < height; ++y) {
    for (uint32_t x = 0; x < width; ++x) {
      for (int c = 0; c < 4; ++c) {
        pixels[(size_t{y} * width + x) * 4 + c] =
            std::byte(c == 3 ? 255 : ((x / 37 + y / 23) % 3) * 90 + c * 10);
      }
    }
  }
  ASSERT_EQ(PngEncodeOptions{}.compression_level, 1);  // the service default: ISA-L level 1
  ASSERT_EQ(FastEncodeParams{}.adaptive_row_step, 16);
  ASSERT_EQ(PngEncodeOptions{}.fast_filter, PngRowFilter::kAdaptive);
  for (int threads : {1, 0}) {
    absl::StatusOr<std::string> png = EncodePng(pixels, width, height, graph::PixelFormat::kRgba8,
                                                {.threads = threads});
    ASSERT_TRUE(png.ok()) << png.status();
    EXPECT_EQ(*Decode(*png, false), pixels) << threads;
    EXPECT_EQ(*Decode(*png, true), pixels) << threads;
    bool zlib_ok = false;
    const std::string filtered = testing::InflateIdat(*png, &zlib_ok);
    ASSERT_TRUE(zlib_ok);
    const size_t stride = 1 + size_t{width} * 4;
    ASSERT_EQ(filtered.size(), stride * height);
    std::set<char> filters;
    for (uint32_t y = 0; y < height; ++y) {
      filters.insert(filtered[y * stride]);
      if (threads == 1 && y % 16 != 0) {
        EXPECT_EQ(filtered[y * stride], filtered[(y - 1) * stride]) << "row " << y;
      }
    }
    EXPECT_GE(filters.size(), 2u);  // the choice is made, not one filter for all
    absl::StatusOr<PngChunks> chunks = ParsePngChunks("out", AsBytes(*png));
    ASSERT_TRUE(chunks.ok());
    EXPECT_LE(chunks->idat_bytes, testing::ZlibCompress(filtered, 1).size()) << threads;
    absl::StatusOr<std::string> every_row = EncodePngFast(
        pixels, width, height, false,
        {.threads = threads == 1 ? 1 : 2, .adaptive_row_step = 1});
    ASSERT_TRUE(every_row.ok());
    EXPECT_LE(double(png->size()), 1.01 * double(every_row->size())) << threads;
  }
}

// kSmallerOnSample goes on with the coder that wrote fewer bytes for each
// piece's first slab: the runs coder on a photograph's residuals, ISA-L on
// a tiled pattern (repeats at a longer distance than runs see). With runs
// the file is byte for byte the one the runs coder alone writes; with
// ISA-L it differs from ISA-L's alone only by the sample's flush.
TEST(FastEncode, SampleKeepsTheSmallerCoderPerPiece) {
  const uint32_t width = 700, height = 300;  // 840 KB: 3 slabs, or 2 pieces
  const std::vector<std::byte> photo = PhotoLike(width, height, false, 21);
  std::vector<std::byte> tiles(photo.size());
  std::mt19937 rng(4);
  std::vector<std::byte> tile(61 * 4);  // a noisy tile: no runs, but repeats
  for (std::byte& b : tile) b = std::byte(rng() & 0xff);
  for (size_t i = 0; i < tiles.size(); ++i) tiles[i] = tile[i % tile.size()];
  for (int threads : {1, 2}) {
    auto encode = [&](const std::vector<std::byte>& pixels, DeflateMethod method) {
      absl::StatusOr<std::string> png = EncodePngFast(
          pixels, width, height, false,
          {.method = method, .filter = PngRowFilter::kPaeth, .threads = threads,
           .min_piece_bytes = 1});
      EXPECT_TRUE(png.ok()) << png.status();
      EXPECT_EQ(*Decode(*png, true), pixels);
      return png.value_or("");
    };
    SCOPED_TRACE(::testing::Message() << threads << " pieces");
    const std::string photo_runs = encode(photo, DeflateMethod::kRuns);
    const std::string photo_isal = encode(photo, DeflateMethod::kIsal);
    EXPECT_LT(photo_runs.size(), photo_isal.size());
    // (Compared as booleans: a failure would print megabytes.)
    EXPECT_TRUE(encode(photo, DeflateMethod::kSmallerOnSample) == photo_runs);
    const std::string tiles_runs = encode(tiles, DeflateMethod::kRuns);
    const std::string tiles_isal = encode(tiles, DeflateMethod::kIsal);
    EXPECT_LT(tiles_isal.size() * 5, tiles_runs.size()) << tiles_isal.size();
    const std::string tiles_sampled = encode(tiles, DeflateMethod::kSmallerOnSample);
    // The flush ends ISA-L's block: a new block header, ~100 bytes a piece.
    EXPECT_LE(tiles_sampled.size(), tiles_isal.size() + 128 * size_t(threads));
  }
}

TEST(FastEncode, TinyImages) {
  for (uint32_t width : {1u, 2u, 5u}) {
    for (uint32_t height : {1u, 3u}) {
      const std::vector<std::byte> pixels = PhotoLike(width, height, false, width * 10 + height);
      absl::StatusOr<std::string> png =
          EncodePngFast(pixels, width, height, false,
                        {.filter = PngRowFilter::kAdaptive, .threads = 4, .min_piece_bytes = 1});
      ASSERT_TRUE(png.ok());
      EXPECT_EQ(*Decode(*png, false), pixels) << width << "x" << height;
    }
  }
}

// ---- Corrupt data: both decoders refuse it ----------------------------------

// A 64x64 RGB image, filtered rows (filter byte + 192 bytes) of a gradient.
std::string FilteredRows(uint32_t width, uint32_t height, int channels, uint8_t filter = 1) {
  std::string raw;
  for (uint32_t y = 0; y < height; ++y) {
    raw.push_back(static_cast<char>(filter));
    for (uint32_t i = 0; i < width * channels; ++i) raw.push_back(static_cast<char>(i * 7 + y));
  }
  return raw;
}

std::string RgbPng(const std::string& zlib_data) {
  return testing::BuildPng({{"IHDR", testing::IhdrData(64, 64, 8, 2)},
                            {"IDAT", zlib_data},
                            {"IEND", ""}});
}

void ExpectRefusedByBoth(const std::string& png, const std::string& words) {
  for (bool fast : {true, false}) {
    absl::Status s = Decode(png, fast).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << "fast " << fast << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("image 'photo'"));
    if (!words.empty()) {
      EXPECT_THAT(std::string(s.message()), HasSubstr(words)) << fast;
    }
  }
}

TEST(FastDecodeErrors, ControlDecodes) {
  const std::string png = RgbPng(testing::ZlibCompress(FilteredRows(64, 64, 3)));
  ASSERT_TRUE(TakesFastPath(png));
  EXPECT_TRUE(Decode(png, true).ok());
  EXPECT_EQ(*Decode(png, true), *Decode(png, false));
}

TEST(FastDecodeErrors, TooShortImageData) {
  const std::string raw = FilteredRows(64, 64, 3);
  ExpectRefusedByBoth(RgbPng(testing::ZlibCompress(raw.substr(0, raw.size() - 100))),
                      "image data");
  ExpectRefusedByBoth(RgbPng(testing::ZlibCompress(raw.substr(0, raw.size() - 1))), "");
}

TEST(FastDecodeErrors, TooLongImageData) {
  const std::string raw = FilteredRows(64, 64, 3);
  ExpectRefusedByBoth(RgbPng(testing::ZlibCompress(raw + std::string(500, '\0'))),
                      "oo much image data");
  ExpectRefusedByBoth(RgbPng(testing::ZlibCompress(raw + std::string(1, '\0'))), "");
}

TEST(FastDecodeErrors, CorruptDeflateDataWithGoodCrc) {
  std::string z = testing::ZlibCompress(FilteredRows(64, 64, 3));
  for (size_t at : {size_t{2}, z.size() / 3, z.size() / 2}) {
    std::string bad = z;
    bad[at] ^= 0x5a;
    // Not every flip breaks deflate; those that do are refused by both.
    if (Decode(RgbPng(bad), false).ok()) continue;
    ExpectRefusedByBoth(RgbPng(bad), "");
  }
}

TEST(FastDecodeErrors, BadZlibHeaderAndChecksum) {
  std::string z = testing::ZlibCompress(FilteredRows(64, 64, 3));
  std::string header = z;
  header[0] = 0x79;  // compression method 9
  ExpectRefusedByBoth(RgbPng(header), "");
  std::string adler = z;
  adler[adler.size() - 1] ^= 1;
  ExpectRefusedByBoth(RgbPng(adler), "");
}

TEST(FastDecodeErrors, BadFilterType) {
  ExpectRefusedByBoth(RgbPng(testing::ZlibCompress(FilteredRows(64, 64, 3, 5))), "filter");
}

TEST(FastDecodeErrors, BytesAfterTheZlibStream) {
  const std::string z = testing::ZlibCompress(FilteredRows(64, 64, 3));
  // Junk after the stream's end in the same IDAT: libpng warns ("Extra
  // compressed data") and goes on; both paths refuse.
  ExpectRefusedByBoth(RgbPng(z + "junk"), "");
  // The same bytes in an IDAT of their own: libpng skips them without a
  // word; the codec checks the stream's end on that path too.
  ExpectRefusedByBoth(testing::BuildPng({{"IHDR", testing::IhdrData(64, 64, 8, 2)},
                                         {"IDAT", z},
                                         {"IDAT", "junk"},
                                         {"IEND", ""}}),
                      "4 bytes of IDAT data after the end");
}

TEST(FastDecodeErrors, BadZlibHeaders) {
  const std::string z = testing::ZlibCompress(FilteredRows(64, 64, 3));
  for (auto [cmf, flg] : {std::pair{0x88, 0x1c},    // window of 64 KiB
                          std::pair{0x78, 0x02},    // bad check value
                          std::pair{0x78, 0xbb}}) {  // preset dictionary (FDICT)
    std::string bad = z;
    bad[0] = static_cast<char>(cmf);
    bad[1] = static_cast<char>(flg);
    ExpectRefusedByBoth(RgbPng(bad), "");
  }
}

TEST(FastDecodeErrors, IdatSplitAnywhereDecodes) {
  // Control for the above: the stream cut into many IDATs (some empty) is fine.
  const std::string z = testing::ZlibCompress(FilteredRows(64, 64, 3));
  std::vector<testing::RawChunk> chunks = {{"IHDR", testing::IhdrData(64, 64, 8, 2)}};
  for (size_t at = 0; at < z.size(); at += 97) {
    chunks.push_back({"IDAT", z.substr(at, 97)});
    chunks.push_back({"IDAT", ""});
  }
  chunks.push_back({"IEND", ""});
  const std::string png = testing::BuildPng(chunks);
  absl::StatusOr<std::vector<std::byte>> fast = Decode(png, true);
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_EQ(*fast, *Decode(png, false));
}

// ---- Pipelined decoding (inflate on a helper thread) -------------------------

absl::StatusOr<std::vector<std::byte>> DecodeWith(const std::string& png,
                                                  const PngDecodeOptions& options) {
  absl::StatusOr<PngInfo> info = ReadPngHeader("photo", AsBytes(png), kMaxPixels);
  if (!info.ok()) return info.status();
  std::vector<std::byte> pixels(info->decoded_bytes);
  if (absl::Status s = DecodePngInto("photo", AsBytes(png), *info, pixels, options); !s.ok()) {
    return s;
  }
  return pixels;
}

// 700 x 400 RGB: 2101-byte rows, 124 rows per 256 KiB slab, 4 slabs.
constexpr uint32_t kBigWidth = 700, kBigHeight = 400;

std::string BigRgbPng(const std::string& filtered_rows) {
  return testing::BuildPng({{"IHDR", testing::IhdrData(kBigWidth, kBigHeight, 8, 2)},
                            {"IDAT", testing::ZlibCompress(filtered_rows, 1)},
                            {"IEND", ""}});
}

TEST(PipelinedDecode, SameAsSequentialAndLibpng) {
  for (int type : {2, 6}) {
    PngSpec spec;
    spec.color_type = type;
    spec.width = 1200;
    spec.height = 500;
    spec.smooth = true;
    const testing::TestPng png = MakeTestPng(spec);
    absl::StatusOr<std::vector<std::byte>> pipelined = DecodeWith(png.file, {.pipelined = true});
    absl::StatusOr<std::vector<std::byte>> sequential = DecodeWith(png.file, {.pipelined = false});
    ASSERT_TRUE(pipelined.ok() && sequential.ok());
    EXPECT_EQ(*pipelined, png.expected);
    EXPECT_EQ(*sequential, png.expected);
  }
}

TEST(PipelinedDecode, ErrorsInLateSlabsAreTheSequentialOnes) {
  const std::string rows = FilteredRows(kBigWidth, kBigHeight, 3);
  std::string bad_filter = rows;
  bad_filter[size_t{350} * (kBigWidth * 3 + 1)] = 7;  // row 350, in the last slab
  std::string late_corrupt = testing::ZlibCompress(rows, 1);
  late_corrupt[late_corrupt.size() * 9 / 10] ^= 0x33;
  const std::string cases[] = {
      BigRgbPng(rows.substr(0, rows.size() - 5000)),  // too short
      BigRgbPng(rows + std::string(3000, '\1')),       // too long
      BigRgbPng(bad_filter),
      testing::BuildPng({{"IHDR", testing::IhdrData(kBigWidth, kBigHeight, 8, 2)},
                         {"IDAT", late_corrupt},
                         {"IEND", ""}}),
  };
  ASSERT_TRUE(DecodeWith(BigRgbPng(rows), {.pipelined = true}).ok());
  for (const std::string& png : cases) {
    const absl::Status pipelined = DecodeWith(png, {.pipelined = true}).status();
    const absl::Status sequential = DecodeWith(png, {.pipelined = false}).status();
    const absl::Status libpng = DecodeWith(png, {.allow_fast_path = false}).status();
    EXPECT_EQ(pipelined.code(), absl::StatusCode::kInvalidArgument) << pipelined;
    EXPECT_EQ(pipelined, sequential);
    EXPECT_EQ(libpng.code(), absl::StatusCode::kInvalidArgument) << libpng;
  }
}

// ---- Fuzz-ish: random damage never crashes either decoder -------------------

TEST(FastDecodeFuzz, RandomByteFlipsNeverCrash) {
  std::vector<std::string> seeds;
  for (auto [type, depth, interlaced] : {std::tuple{2, 8, false}, std::tuple{6, 8, false},
                                         std::tuple{6, 16, false}, std::tuple{0, 16, false},
                                         std::tuple{3, 4, false}, std::tuple{2, 8, true}}) {
    PngSpec spec;
    spec.color_type = type;
    spec.bit_depth = depth;
    spec.interlaced = interlaced;
    spec.width = 37;
    spec.height = 23;
    spec.smooth = true;
    seeds.push_back(MakeTestPng(spec).file);
  }
  std::mt19937 rng(1234);
  int decoded = 0, refused = 0;
  for (int iteration = 0; iteration < 10000; ++iteration) {
    std::string png = seeds[iteration % seeds.size()];
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) png[8 + rng() % (png.size() - 8)] ^= static_cast<char>(1 + rng() % 255);
    // Most flips would only break a CRC; repair them so the damage reaches
    // inflate, unfiltering and the chunk checks.
    if (iteration % 4 != 0) {
      for (const char* type : {"IHDR", "PLTE", "tRNS", "IDAT"}) testing::FixChunkCrc(png, type);
    }
    if (iteration % 7 == 0) png.resize(rng() % png.size());
    for (bool fast : {true, false}) {
      absl::StatusOr<std::vector<std::byte>> result = Decode(png, fast);
      // Both decoders agree on what they accept.
      if (fast) {
        EXPECT_EQ(result.ok(), Decode(png, false).ok()) << result.status();
      }
      if (result.ok()) {
        ++decoded;
      } else {
        ++refused;
        EXPECT_TRUE(result.status().code() == absl::StatusCode::kInvalidArgument ||
                    result.status().code() == absl::StatusCode::kResourceExhausted)
            << result.status();
      }
    }
  }
  std::printf("random damage: %d decodes, %d refusals\n", decoded, refused);
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace rgfx::service
