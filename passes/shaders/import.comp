#version 450
#extension GL_GOOGLE_include_directive : require
// Client pixels → working format: decode the client's format, sRGB → linear
// (unless the client declared linear values), straight → premultiplied alpha
// (blurs must average premultiplied colour, or edges get dark fringes).
#include "shader_interface.h"
#include "working_format.glsl"
#include "color.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

// Client bytes as 32-bit words, little-endian, rows tightly packed.
layout(std430, binding = 0) readonly buffer RawBlock { uint raw[]; };
WORKING_BUFFER(1, writeonly, dst);

layout(push_constant) uniform Push {
  uint width;
  uint height;
  uint format;       // RGFX_FORMAT_*
  uint srgb;         // 1: values are sRGB-encoded
  uint premultiply;  // 1: alpha is straight and must be premultiplied
} pc;

vec4 Decode(uint i) {
  if (pc.format == RGFX_FORMAT_RGBA8) return unpackUnorm4x8(raw[i]);
  if (pc.format == RGFX_FORMAT_RGBA16) {
    return vec4(unpackUnorm2x16(raw[2 * i]), unpackUnorm2x16(raw[2 * i + 1]));
  }
  if (pc.format == RGFX_FORMAT_RGBA16F) {
    return vec4(unpackHalf2x16(raw[2 * i]), unpackHalf2x16(raw[2 * i + 1]));
  }
  return uintBitsToFloat(uvec4(raw[4 * i], raw[4 * i + 1], raw[4 * i + 2], raw[4 * i + 3]));
}

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  uint i = p.y * pc.width + p.x;
  vec4 c = Decode(i);
  if (pc.srgb != 0) c.rgb = SrgbToLinear(c.rgb);
  if (pc.premultiply != 0) c.rgb *= c.a;
  STORE_PIXEL(dst, i, c);
}
