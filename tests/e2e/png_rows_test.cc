// PNG outputs from scanlines the GPU filtered (ServiceConfig::gpu_png_rows:
// on for GPUs, forced on for these suites; OutputDesc::png_rows): the
// server's file must be the one the CPU encoder writes from the raw pixels
// judging every row, byte for byte, and a translucent output must fall back
// to an RGBA file of the same pixels.
#include <png.h>

#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

#include "service/png_codec.h"
#include "service/png_fast_encode.h"
#include "tests/e2e/server_fixture.h"
#include "tests/service/png_test_util.h"

namespace rgfx::testing {
namespace {

constexpr char kBlurGraph[] = R"({
  "passes": [{"name": "soft", "inputs": ["image"], "outputs": ["out"],
              "gaussianBlur": {"radius": 3, "border": "BORDER_MODE_MIRROR"}}],
  "outputs": ["out"]})";

std::span<const std::byte> Bytes(const std::string& s) {
  return std::as_bytes(std::span<const char>(s.data(), s.size()));
}

std::vector<std::byte> Decode(const std::string& png) {
  absl::StatusOr<service::PngInfo> info = service::ReadPngHeader("out", Bytes(png), 1 << 26);
  EXPECT_TRUE(info.ok()) << info.status();
  if (!info.ok()) return {};
  std::vector<std::byte> pixels(info->decoded_bytes);
  EXPECT_TRUE(service::DecodePngInto("out", Bytes(png), *info, pixels).ok());
  return pixels;
}

class PngRowsTest : public ServerTest {
 protected:
  void SetUp() override {
    if (!server().engine().caps().storage_int8) {
      GTEST_SKIP() << "the device has no 8-bit storage buffers: the CPU filters PNG rows there "
                      "(covered by the codec tests)";
    }
  }

  // The graph's output as a PNG (the server's default for a PNG input) and
  // as raw RGBA8 pixels.
  void Run(const std::string& png, std::string& encoded, std::string& raw) {
    v1::ProcessRequest request = RequestFromJson(kBlurGraph, png);
    v1::ProcessResponse response;
    grpc::Status status = Process(request, response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    encoded = response.outputs(0).data();
    request.mutable_options()->set_output_encoding(v1::IMAGE_ENCODING_RGBA8);
    status = Process(request, response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    raw = response.outputs(0).data();
  }
};

TEST_F(PngRowsTest, OpaqueOutputIsTheEveryRowAdaptiveEncode) {
  // 701 x 499 RGB: ~1 MB of scanlines, so the server deflates two pieces.
  for (auto [width, height] : {std::pair{701u, 499u}, std::pair{1u, 1u}, std::pair{37u, 2u}}) {
    SCOPED_TRACE(::testing::Message() << width << "x" << height);
    std::string encoded, raw;
    Run(SamplePng(width, height, width), encoded, raw);
    ASSERT_EQ(raw.size(), size_t{width} * height * 4);
    // The server's default encoder options (PngEncodeOptions, FastParamsOf).
    const int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    absl::StatusOr<std::string> expected = service::EncodePngFast(
        Bytes(raw), width, height, false,
        {.method = service::PngEncodeOptions{}.level1_deflate,
         .threads = threads,
         .opaque_as_rgb = true,
         .adaptive_row_step = 1});
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_EQ(encoded, *expected);
    EXPECT_EQ(Decode(encoded), std::vector<std::byte>(Bytes(raw).begin(), Bytes(raw).end()));
  }
}

TEST_F(PngRowsTest, TranslucentOutputFallsBackToRgba) {
  const TestPng png = MakeTestPng({.width = 53, .height = 41, .color_type = PNG_COLOR_TYPE_RGB_ALPHA});
  std::string encoded, raw;
  Run(png.file, encoded, raw);
  const size_t ihdr = ChunkDataOffset(encoded, "IHDR");
  ASSERT_NE(ihdr, std::string::npos);
  EXPECT_EQ(static_cast<int>(static_cast<uint8_t>(encoded[ihdr + 9])), PNG_COLOR_TYPE_RGB_ALPHA);
  EXPECT_EQ(Decode(encoded), std::vector<std::byte>(Bytes(raw).begin(), Bytes(raw).end()));
}

}  // namespace
}  // namespace rgfx::testing
