#version 450
#extension GL_GOOGLE_include_directive : require
// upsample: grows by an integer factor. Output pixel x samples the source at
// (x + 0.5) / factor - 0.5 (pixel centres stay aligned with downsample's
// blocks). nearest takes the pixel under it; bilinear interpolates; tent
// averages nine bilinear samples one source pixel apart, weights 1 2 1 ⊗
// 1 2 1 / 16 (the bloom up-chain filter). With a second input ("base") the
// result is added to it (times base_weight): the output then has base's size.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, readonly, base);  // bound to src and ignored without a base
WORKING_BUFFER(2, writeonly, dst);

layout(push_constant) uniform Push {
  ivec2 src_size;
  ivec2 dst_size;
  int factor;
  uint filter_;  // RGFX_UPSAMPLE_*
  uint border;
  uint has_base;
  float base_weight;  // base is added times this (0: base only sets the size)
} pc;

#include "sample2d.glsl"

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= pc.dst_size.x || p.y >= pc.dst_size.y) return;
  vec2 pos = (vec2(p) + 0.5) / float(pc.factor) - 0.5;
  vec4 value;
  if (pc.filter_ == RGFX_UPSAMPLE_NEAREST) {
    value = Fetch(p / pc.factor, pc.src_size, pc.border);
  } else if (pc.filter_ == RGFX_UPSAMPLE_BILINEAR) {
    value = Bilinear(pos, pc.src_size, pc.border);
  } else {
    value = vec4(0.0);
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        float w = float((2 - abs(dx)) * (2 - abs(dy))) / 16.0;
        value += w * Bilinear(pos + vec2(dx, dy), pc.src_size, pc.border);
      }
    }
  }
  uint i = uint(p.y) * uint(pc.dst_size.x) + uint(p.x);
  if (pc.has_base != 0) value += pc.base_weight * LOAD_PIXEL(base, i);
  STORE_PIXEL(dst, i, value);
}
