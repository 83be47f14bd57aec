#include "service/png_codec.h"

#include <png.h>

#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/service/png_test_util.h"

namespace rgfx::service {
namespace {

using ::testing::HasSubstr;
using testing::AllPngKinds;
using testing::MakeTestPng;
using testing::PngSpec;

constexpr uint64_t kMaxPixels = 64ull << 20;

std::span<const std::byte> AsBytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

absl::StatusOr<std::vector<std::byte>> Decode(const std::string& png,
                                              uint64_t max_pixels = kMaxPixels) {
  absl::StatusOr<PngInfo> info = ReadPngHeader("photo", AsBytes(png), max_pixels);
  if (!info.ok()) return info.status();
  std::vector<std::byte> pixels(info->decoded_bytes);
  if (absl::Status s = DecodePngInto("photo", AsBytes(png), *info, pixels); !s.ok()) return s;
  return pixels;
}

class PngDecodeKinds : public ::testing::TestWithParam<PngSpec> {};

TEST_P(PngDecodeKinds, DecodesToExpectedRgba) {
  const testing::TestPng png = MakeTestPng(GetParam());
  absl::StatusOr<PngInfo> info = ReadPngHeader("photo", AsBytes(png.file), kMaxPixels);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->width, GetParam().width);
  EXPECT_EQ(info->height, GetParam().height);
  EXPECT_EQ(info->interlaced, GetParam().interlaced);
  EXPECT_EQ(info->format, png.sixteen_bit ? graph::PixelFormat::kRgba16 : graph::PixelFormat::kRgba8);
  absl::StatusOr<std::vector<std::byte>> pixels = Decode(png.file);
  ASSERT_TRUE(pixels.ok()) << pixels.status();
  EXPECT_EQ(*pixels, png.expected);
}

INSTANTIATE_TEST_SUITE_P(AllColorTypesAndDepths, PngDecodeKinds, ::testing::ValuesIn(AllPngKinds()),
                         [](const auto& info) { return testing::PngSpecName(info.param); });

class PngRoundTrip : public ::testing::TestWithParam<std::tuple<bool, int, bool>> {};

TEST_P(PngRoundTrip, EncodeThenDecodeIsIdentity) {
  const auto [sixteen, level, fast_filter] = GetParam();
  const uint32_t width = 33, height = 17;
  std::vector<std::byte> pixels(size_t{width} * height * (sixteen ? 8 : 4));
  std::mt19937 rng(42);
  for (std::byte& b : pixels) b = std::byte(rng());
  const graph::PixelFormat format = sixteen ? graph::PixelFormat::kRgba16 : graph::PixelFormat::kRgba8;
  absl::StatusOr<std::string> png =
      EncodePng(pixels, width, height, format, {.compression_level = level,
                                                .single_fast_filter = fast_filter});
  ASSERT_TRUE(png.ok()) << png.status();
  absl::StatusOr<PngInfo> info = ReadPngHeader("out", AsBytes(*png), kMaxPixels);
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->bit_depth, sixteen ? 16 : 8);
  EXPECT_EQ(info->color_type, PNG_COLOR_TYPE_RGB_ALPHA);
  absl::StatusOr<std::vector<std::byte>> back = Decode(*png);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, pixels);
}

INSTANTIATE_TEST_SUITE_P(DepthsLevelsFilters, PngRoundTrip,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(0, 1, 6, 9),
                                            ::testing::Bool()));

TEST(PngEncode, RefusesBadLevelAndFormat) {
  std::vector<std::byte> pixels(16);
  EXPECT_EQ(EncodePng(pixels, 2, 2, graph::PixelFormat::kRgba8, {.compression_level = 10})
                .status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EncodePng(pixels, 1, 1, graph::PixelFormat::kRgba32F).status().code(),
            absl::StatusCode::kInvalidArgument);
}

std::string ValidPng() {
  PngSpec spec;
  spec.color_type = PNG_COLOR_TYPE_RGB;
  spec.width = 64;
  spec.height = 64;
  return MakeTestPng(spec).file;
}

TEST(PngDecodeErrors, NotAPng) {
  absl::Status s = Decode("GIF89a this is not a png at all").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("image 'photo'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("not a PNG"));
  EXPECT_EQ(Decode("").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PngDecodeErrors, Truncated) {
  const std::string png = ValidPng();
  for (size_t keep : {size_t{9}, size_t{30}, png.size() / 2, png.size() - 13}) {
    absl::Status s = Decode(png.substr(0, keep)).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << keep;
    EXPECT_THAT(std::string(s.message()), HasSubstr("image 'photo'")) << keep;
  }
  EXPECT_THAT(Decode(png.substr(0, png.size() / 2)).status().message(), HasSubstr("truncated"));
}

TEST(PngDecodeErrors, BadCrc) {
  std::string png = ValidPng();
  const size_t idat = testing::ChunkDataOffset(png, "IDAT");
  ASSERT_NE(idat, std::string::npos);
  const std::string good = png;
  // The stored CRC itself is wrong.
  const size_t length = (uint8_t(png[idat - 6]) << 8) | uint8_t(png[idat - 5]);
  png[idat + length] ^= 0x55;
  absl::Status s = Decode(png).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("CRC"));
  // The data is corrupt (zlib notices before the CRC is reached).
  png = good;
  png[idat + 5] ^= 0x55;
  EXPECT_EQ(Decode(png).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(PngDecodeErrors, BadIhdr) {
  std::string png = ValidPng();
  const size_t ihdr = testing::ChunkDataOffset(png, "IHDR");
  png[ihdr + 8] = 3;  // bit depth 3 does not exist
  ASSERT_TRUE(testing::FixChunkCrc(png, "IHDR"));
  absl::Status s = Decode(png).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("bit depth"));
}

void SetSize(std::string& png, uint32_t width, uint32_t height) {
  const size_t ihdr = testing::ChunkDataOffset(png, "IHDR");
  for (int i = 0; i < 4; ++i) {
    png[ihdr + i] = static_cast<char>(width >> (24 - 8 * i));
    png[ihdr + 4 + i] = static_cast<char>(height >> (24 - 8 * i));
  }
  testing::FixChunkCrc(png, "IHDR");
}

TEST(PngDecodeErrors, ZeroWidth) {
  std::string png = ValidPng();
  SetSize(png, 0, 64);
  absl::Status s = Decode(png).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("width"));
}

TEST(PngDecodeErrors, HugeHeaderRefusedBeforeAllocation) {
  // A small file whose IHDR claims 100000x100000 (10^10 pixels): refused by
  // ReadPngHeader, so no buffer is ever sized from it.
  std::string png = ValidPng();
  SetSize(png, 100000, 100000);
  absl::StatusOr<PngInfo> info = ReadPngHeader("photo", AsBytes(png), kMaxPixels);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(info.status().message()), HasSubstr("100000x100000"));
  EXPECT_THAT(std::string(info.status().message()), HasSubstr("image 'photo'"));
}

TEST(PngDecodeErrors, LimitIsWidthTimesHeight) {
  const std::string png = ValidPng();  // 64x64 = 4096 pixels
  EXPECT_TRUE(Decode(png, 4096).ok());
  EXPECT_EQ(Decode(png, 4095).status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(PngDecodeErrors, WrongBufferSizeIsOurBug) {
  const std::string png = ValidPng();
  absl::StatusOr<PngInfo> info = ReadPngHeader("photo", AsBytes(png), kMaxPixels);
  ASSERT_TRUE(info.ok());
  std::vector<std::byte> small(info->decoded_bytes - 1);
  EXPECT_EQ(DecodePngInto("photo", AsBytes(png), *info, small).code(),
            absl::StatusCode::kInternal);
}

TEST(RawImage, SizeMustMatch) {
  EXPECT_EQ(*CheckRawImage("a", graph::PixelFormat::kRgba8, 3, 2, 24, kMaxPixels), 24u);
  EXPECT_EQ(*CheckRawImage("a", graph::PixelFormat::kRgba32F, 3, 2, 96, kMaxPixels), 96u);
  absl::Status s = CheckRawImage("raw", graph::PixelFormat::kRgba16, 3, 2, 47, kMaxPixels).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("image 'raw'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("48"));
  EXPECT_EQ(CheckRawImage("raw", graph::PixelFormat::kRgba8, 0, 2, 0, kMaxPixels).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(RawImage, HugeSizesDoNotOverflow) {
  // 2^32-1 squared times 16 bytes overflows 64 bits; the pixel limit catches it first.
  absl::Status s = CheckRawImage("raw", graph::PixelFormat::kRgba32F, 0xffffffffu, 0xffffffffu,
                                 16, ~uint64_t{0})
                       .status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(CheckRawImage("raw", graph::PixelFormat::kRgba8, 100000, 100000, 4, kMaxPixels)
                .status().code(),
            absl::StatusCode::kResourceExhausted);
}

// Pipelined decodes only while at most half the cores are decoding.
TEST(PipelineDecode, OnlyWhileCoresIdle) {
  EXPECT_TRUE(PipelineDecode(1, 16));
  EXPECT_TRUE(PipelineDecode(8, 16));
  EXPECT_FALSE(PipelineDecode(9, 16));
  EXPECT_FALSE(PipelineDecode(64, 16));
  EXPECT_TRUE(PipelineDecode(1, 2));
  EXPECT_FALSE(PipelineDecode(2, 2));
  EXPECT_FALSE(PipelineDecode(1, 1));  // no second core
  EXPECT_FALSE(PipelineDecode(1, 0));  // hardware_concurrency() may say 0
}

TEST(EncodeThreadsByLoad, SharesTheCoresAmongStages) {
  EXPECT_EQ(EncodeThreadsByLoad(1, 16), 8);   // alone: 8 pieces at most
  EXPECT_EQ(EncodeThreadsByLoad(2, 16), 8);
  EXPECT_EQ(EncodeThreadsByLoad(4, 16), 4);
  EXPECT_EQ(EncodeThreadsByLoad(5, 16), 3);
  EXPECT_EQ(EncodeThreadsByLoad(16, 16), 1);  // every core taken: one thread each
  EXPECT_EQ(EncodeThreadsByLoad(40, 16), 1);
  EXPECT_EQ(EncodeThreadsByLoad(1, 2), 2);
  EXPECT_EQ(EncodeThreadsByLoad(1, 0), 1);    // hardware_concurrency() may say 0
  EXPECT_EQ(EncodeThreadsByLoad(0, 16), 8);   // miscounted: still a sane share
}

}  // namespace
}  // namespace rgfx::service
