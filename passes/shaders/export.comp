#version 450
#extension GL_GOOGLE_include_directive : require
// Working format → client pixels: the inverse of import.comp. Straight alpha
// is recovered by dividing by alpha (colour under alpha 0 is 0), linear →
// sRGB, then integer formats are clamped to [0, 1] and rounded.
#include "shader_interface.h"
#include "working_format.glsl"
#include "color.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, src);
layout(std430, binding = 1) writeonly buffer RawBlock { uint raw[]; };

layout(push_constant) uniform Push {
  uint width;
  uint height;
  uint format;         // RGFX_FORMAT_*
  uint srgb;           // 1: encode to sRGB
  uint unpremultiply;  // 1: the client wants straight alpha
} pc;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  uint i = p.y * pc.width + p.x;
  vec4 c = LOAD_PIXEL(src, i);
  if (pc.unpremultiply != 0) c.rgb = c.a > 0.0 ? c.rgb / c.a : vec3(0.0);
  if (pc.srgb != 0) c.rgb = LinearToSrgb(c.rgb);
  if (pc.format == RGFX_FORMAT_RGBA8) {
    raw[i] = packUnorm4x8(c);  // clamps to [0, 1] and rounds to nearest
  } else if (pc.format == RGFX_FORMAT_RGBA16) {
    raw[2 * i] = packUnorm2x16(c.xy);
    raw[2 * i + 1] = packUnorm2x16(c.zw);
  } else if (pc.format == RGFX_FORMAT_RGBA16F) {
    raw[2 * i] = packHalf2x16(c.xy);
    raw[2 * i + 1] = packHalf2x16(c.zw);
  } else {
    uvec4 bits = floatBitsToUint(c);
    raw[4 * i] = bits.x;
    raw[4 * i + 1] = bits.y;
    raw[4 * i + 2] = bits.z;
    raw[4 * i + 3] = bits.w;
  }
}
