#include "graph/image_format.h"

#include "gtest/gtest.h"

namespace rgfx::graph {
namespace {

TEST(ImageFormat, BytesPerPixel) {
  EXPECT_EQ(BytesPerPixel(PixelFormat::kRgba8), 4u);
  EXPECT_EQ(BytesPerPixel(PixelFormat::kRgba16), 8u);
  EXPECT_EQ(BytesPerPixel(PixelFormat::kRgba16F), 8u);
  EXPECT_EQ(BytesPerPixel(PixelFormat::kRgba32F), 16u);
}

TEST(ImageFormat, NamesRoundTrip) {
  for (PixelFormat f :
       {PixelFormat::kRgba8, PixelFormat::kRgba16, PixelFormat::kRgba16F, PixelFormat::kRgba32F}) {
    EXPECT_EQ(ParsePixelFormat(PixelFormatName(f)), f);
  }
  EXPECT_EQ(PixelFormatName(PixelFormat::kRgba16F), "RGBA16F");
  EXPECT_EQ(ParsePixelFormat("rgba32f"), PixelFormat::kRgba32F);
  EXPECT_EQ(ParsePixelFormat("RGB8"), std::nullopt);
  EXPECT_EQ(ParsePixelFormat(""), std::nullopt);
}

TEST(ImageFormat, WorkingFormatsAreTheFloatOnes) {
  EXPECT_FALSE(IsWorkingFormat(PixelFormat::kRgba8));
  EXPECT_FALSE(IsWorkingFormat(PixelFormat::kRgba16));
  EXPECT_TRUE(IsWorkingFormat(PixelFormat::kRgba16F));
  EXPECT_TRUE(IsWorkingFormat(PixelFormat::kRgba32F));
  EXPECT_TRUE(IsFloatFormat(PixelFormat::kRgba32F));
  EXPECT_FALSE(IsFloatFormat(PixelFormat::kRgba8));
}

TEST(ImageFormat, ColorSpaceAndAlphaNames) {
  EXPECT_EQ(ColorSpaceName(ColorSpace::kSrgb), "srgb");
  EXPECT_EQ(ColorSpaceName(ColorSpace::kLinear), "linear");
  EXPECT_EQ(AlphaModeName(AlphaMode::kStraight), "straight");
  EXPECT_EQ(AlphaModeName(AlphaMode::kPremultiplied), "premultiplied");
}

TEST(ImageFormat, ExtentPixelsDoNotOverflow) {
  Extent e{100000, 100000};
  EXPECT_EQ(e.pixels(), 10000000000ull);
}

}  // namespace
}  // namespace rgfx::graph
