// Issue 10: what the PNG specification calls an error is refused with
// InvalidArgument naming the image, by the fast path and by libpng alike,
// even where libpng on its own would decode the file.
#include <sys/resource.h>

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "service/png_codec.h"
#include "tests/service/png_test_util.h"

namespace rgfx::service {
namespace {

using ::testing::HasSubstr;
using namespace std::string_literals;
using testing::BuildPng;
using testing::IhdrData;
using testing::RawChunk;
using testing::ZlibCompress;

constexpr uint64_t kMaxPixels = 1 << 20;

std::span<const std::byte> AsBytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

absl::Status Decode(const std::string& png, bool fast) {
  absl::StatusOr<PngInfo> info = ReadPngHeader("img7", AsBytes(png), kMaxPixels);
  if (!info.ok()) return info.status();
  std::vector<std::byte> pixels(info->decoded_bytes);
  return DecodePngInto("img7", AsBytes(png), *info, pixels, {.allow_fast_path = fast});
}

void ExpectRefused(const std::string& png, const std::string& words) {
  for (bool fast : {true, false}) {
    const absl::Status s = Decode(png, fast);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << "fast " << fast << ": " << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("image 'img7'"));
    EXPECT_THAT(std::string(s.message()), HasSubstr(words)) << "fast " << fast;
  }
}

void ExpectDecodes(const std::string& png) {
  for (bool fast : {true, false}) EXPECT_TRUE(Decode(png, fast).ok()) << Decode(png, fast);
}

// 4x2 palette image, 8-bit indices, filter None.
std::string IndexRows(const std::string& row0, const std::string& row1) {
  return std::string(1, '\0') + row0 + std::string(1, '\0') + row1;
}

std::string Palette(int entries) {
  std::string p;
  for (int i = 0; i < entries; ++i) p += std::string{char(i * 40), char(255 - i), char(i)};
  return p;
}

TEST(PngStrict, PaletteIndexInRangeDecodes) {
  ExpectDecodes(BuildPng({{"IHDR", IhdrData(4, 2, 8, 3)},
                          {"PLTE", Palette(3)},
                          {"IDAT", ZlibCompress(IndexRows("\0\1\2\1"s, "\2\2\0\0"s))},
                          {"IEND", ""}}));
}

TEST(PngStrict, PaletteIndexPastPlte) {
  // libpng alone decodes this, giving black for index 5.
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 3)},
                          {"PLTE", Palette(3)},
                          {"IDAT", ZlibCompress(IndexRows("\0\1\2\1"s, "\2\5\0\0"s))},
                          {"IEND", ""}}),
                "palette index 5 at (1, 1) is past the end of the 3-entry PLTE");
}

TEST(PngStrict, PackedPaletteIndexPastPlte) {
  // 2-bit indices, 4 pixels per byte: 0b00011011 = indices 0,1,2,3 with 3 entries.
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 2, 3)},
                          {"PLTE", Palette(3)},
                          {"IDAT", ZlibCompress(IndexRows("\x06"s, "\x1b"s))},
                          {"IEND", ""}}),
                "palette index 3");
}

TEST(PngStrict, InterlacedPaletteIndexPastPlte) {
  // Adam7 of a 1x1 image is one pass with one row: the same bytes as a plain one.
  ExpectRefused(BuildPng({{"IHDR", IhdrData(1, 1, 8, 3, /*interlaced=*/true)},
                          {"PLTE", Palette(2)},
                          {"IDAT", ZlibCompress(std::string("\0\7", 2))},
                          {"IEND", ""}}),
                "palette index 7");
}

TEST(PngStrict, MissingPlte) {
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 3)},
                          {"IDAT", ZlibCompress(IndexRows("\0\0\0\0"s, "\0\0\0\0"s))},
                          {"IEND", ""}}),
                "PLTE");
}

TEST(PngStrict, PlteInGreyscaleImage) {
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)},
                          {"PLTE", Palette(3)},
                          {"IDAT", ZlibCompress(IndexRows("\0\0\0\0"s, "\0\0\0\0"s))},
                          {"IEND", ""}}),
                "PLTE chunk in a greyscale image");
}

TEST(PngStrict, PlteLargerThanTheBitDepthAllows) {
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 1, 3)},
                          {"PLTE", Palette(3)},  // 1-bit indices: at most 2 entries
                          {"IDAT", ZlibCompress(IndexRows("\0"s, "\0"s))},
                          {"IEND", ""}}),
                "PLTE of 9 bytes");
}

TEST(PngStrict, BadTrnsLength) {
  const std::string rgb_rows = ZlibCompress(IndexRows(std::string(12, 'a'), std::string(12, 'b')));
  ExpectDecodes(BuildPng({{"IHDR", IhdrData(4, 2, 8, 2)},
                          {"tRNS", std::string(6, '\0')},
                          {"IDAT", rgb_rows},
                          {"IEND", ""}}));
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 2)},
                          {"tRNS", std::string(4, '\0')},
                          {"IDAT", rgb_rows},
                          {"IEND", ""}}),
                "tRNS of 4 bytes");
  // More alphas than palette entries.
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 3)},
                          {"PLTE", Palette(2)},
                          {"tRNS", std::string(3, '\x80')},
                          {"IDAT", ZlibCompress(IndexRows("\0\1\0\1"s, "\0\0\0\0"s))},
                          {"IEND", ""}}),
                "tRNS of 3 bytes");
}

TEST(PngStrict, TrnsInImageWithAlpha) {
  ExpectRefused(BuildPng({{"IHDR", IhdrData(2, 2, 8, 6)},
                          {"tRNS", std::string(6, '\0')},
                          {"IDAT", ZlibCompress(IndexRows(std::string(8, 'a'), std::string(8, 'b')))},
                          {"IEND", ""}}),
                "tRNS chunk in an image with an alpha channel");
}

std::string GreyRows() { return ZlibCompress(IndexRows("abcd"s, "efgh"s)); }

TEST(PngStrict, IdatAfterIend) {
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)},
                          {"IDAT", GreyRows()},
                          {"IEND", ""},
                          {"IDAT", GreyRows()}}),
                "after IEND");
}

TEST(PngStrict, BytesAfterIend) {
  std::string png = BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)}, {"IDAT", GreyRows()}, {"IEND", ""}});
  ExpectDecodes(png);
  ExpectRefused(png + "trailing", "8 bytes of data after IEND");
}

TEST(PngStrict, IdatChunksNotConsecutive) {
  const std::string z = GreyRows();
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)},
                          {"IDAT", z.substr(0, 5)},
                          {"tEXt", std::string("a\0b", 3)},
                          {"IDAT", z.substr(5)},
                          {"IEND", ""}}),
                "IDAT chunks are not consecutive");
}

TEST(PngStrict, IendWithData) {
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)}, {"IDAT", GreyRows()}, {"IEND", "x"}}),
                "IEND has 1 bytes");
}

TEST(PngStrict, NoIdat) {
  // libpng's header read already objects to IEND before any IDAT.
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)}, {"IEND", ""}}), "IEND");
}

TEST(PngStrict, UnknownCriticalChunk) {
  ExpectRefused(BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)},
                          {"ZZZZ", "x"},
                          {"IDAT", GreyRows()},
                          {"IEND", ""}}),
                "ZZZZ");
}

TEST(PngStrict, UnknownAncillaryChunkAndBadAncillaryCrcAreFine) {
  std::string png = BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)},
                              {"zzZz", "whatever"},
                              {"IDAT", GreyRows()},
                              {"IEND", ""}});
  ExpectDecodes(png);
  png[8 + 25 + 8 + 8] ^= 1;  // the ancillary chunk's CRC: libpng skips it too
  ExpectDecodes(png);
}

long MaxRssKib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

TEST(PngStrict, DeclaredChunkLengthsCostNoMemory) {
  // libpng allocates and zeroes a chunk's declared length before reading it:
  // a 2 GB zTXt (or sPLT) in a 100-byte file cost 2 GB in ReadPngHeader.
  for (const char* type : {"zTXt", "sPLT", "iCCP"}) {
    std::string png = BuildPng({{"IHDR", IhdrData(4, 2, 8, 0)}});
    png += std::string("\x7f\xf0\x00\x00", 4) + type + std::string(40, 'x');
    png += BuildPng({{"IDAT", GreyRows()}, {"IEND", ""}}).substr(8);
    const long before = MaxRssKib();
    const absl::Status s = Decode(png, true);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr("declares 2146435072 bytes")) << type;
    EXPECT_LT(MaxRssKib() - before, 64 << 10) << type << ": the peak memory grew";
  }
}

}  // namespace
}  // namespace rgfx::service
