#version 450
#extension GL_GOOGLE_include_directive : require
// dual_filter, down step (Bjørge, "Bandwidth-efficient rendering", 2015):
// output pixel x of the half-size level reads the source at its centre
// c = 2x + 0.5 (between four source pixels) with weight 4 and four bilinear
// samples at c ± offset·(1, ±1), weight 1 each, / 8.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);

layout(push_constant) uniform Push {
  ivec2 src_size;
  ivec2 dst_size;
  float offset;  // in source pixels
  uint border;
} pc;

#include "sample2d.glsl"

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= pc.dst_size.x || p.y >= pc.dst_size.y) return;
  vec2 c = 2.0 * vec2(p) + 0.5;
  float o = pc.offset;
  vec4 sum = 4.0 * Bilinear(c, pc.src_size, pc.border);
  sum += Bilinear(c + vec2(-o, -o), pc.src_size, pc.border);
  sum += Bilinear(c + vec2(o, -o), pc.src_size, pc.border);
  sum += Bilinear(c + vec2(-o, o), pc.src_size, pc.border);
  sum += Bilinear(c + vec2(o, o), pc.src_size, pc.border);
  STORE_PIXEL(dst, uint(p.y) * uint(pc.dst_size.x) + uint(p.x), sum / 8.0);
}
