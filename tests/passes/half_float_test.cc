// passes/half_float: the host's fp16 conversions (RGBA16F data, the matrix
// path's weights) against the format's definition.
#include <cmath>
#include <cstdint>

#include <gtest/gtest.h>

#include "passes/half_float.h"

namespace rgfx {
namespace {

using passes::DoubleToHalf;
using passes::HalfToDouble;

TEST(HalfFloat, EveryHalfSurvivesARoundTrip) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const double v = HalfToDouble(static_cast<uint16_t>(h));
    if (std::isnan(v)) {
      EXPECT_TRUE(std::isnan(HalfToDouble(DoubleToHalf(v)))) << h;  // NaN stays NaN
      continue;
    }
    EXPECT_EQ(DoubleToHalf(v), h) << h;
  }
}

TEST(HalfFloat, KnownValues) {
  EXPECT_EQ(HalfToDouble(0x3c00), 1.0);
  EXPECT_EQ(HalfToDouble(0xc000), -2.0);
  EXPECT_EQ(HalfToDouble(0x7bff), 65504.0);             // largest finite
  EXPECT_EQ(HalfToDouble(0x0400), std::ldexp(1.0, -14));  // smallest normal
  EXPECT_EQ(HalfToDouble(0x0001), std::ldexp(1.0, -24));  // smallest subnormal
  EXPECT_TRUE(std::isinf(HalfToDouble(0x7c00)));
}

TEST(HalfFloat, RoundsToNearestTiesToEven) {
  const double ulp = std::ldexp(1.0, -10);  // spacing of halves in [1, 2)
  EXPECT_EQ(DoubleToHalf(1.0 + 0.49 * ulp), 0x3c00);
  EXPECT_EQ(DoubleToHalf(1.0 + 0.51 * ulp), 0x3c01);
  EXPECT_EQ(DoubleToHalf(1.0 + 0.5 * ulp), 0x3c00);        // tie: even mantissa
  EXPECT_EQ(DoubleToHalf(1.0 + 1.5 * ulp), 0x3c02);        // tie: even mantissa
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.5, -24)), 0x0002);   // subnormal tie to even
  EXPECT_EQ(DoubleToHalf(std::ldexp(1.0, -26)), 0x0000);   // below half the smallest
  EXPECT_EQ(DoubleToHalf(70000.0), 0x7c00);                // overflow: infinity
  EXPECT_EQ(DoubleToHalf(-70000.0), 0xfc00);
}

TEST(HalfFloat, ErrorIsAtMostHalfAnUlpInTheNormalRange) {
  for (double v = 1e-4; v < 60000; v *= 1.0137) {
    const double back = HalfToDouble(DoubleToHalf(v));
    const double ulp = std::ldexp(1.0, std::ilogb(v) - 10);
    EXPECT_LE(std::abs(back - v), 0.5 * ulp * (1 + 1e-9)) << v;
  }
}

}  // namespace
}  // namespace rgfx
