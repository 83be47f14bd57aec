// IEEE 754 binary16 ("half") to and from double, from the format's
// definition: the host side of RGBA16F data and of fp16 constants that
// shaders read (the matrix path's weights).
#pragma once

#include <cstdint>

namespace rgfx::passes {

double HalfToDouble(uint16_t h);
// Rounds to the nearest half (ties to even, through float); overflow gives
// infinity, underflow zero or a subnormal, NaN a quiet NaN.
uint16_t DoubleToHalf(double v);

}  // namespace rgfx::passes
