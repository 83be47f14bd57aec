#version 450
#extension GL_GOOGLE_include_directive : require
// dual_filter, up step: output pixel x of the double-size level reads the
// half-size source at c = (x + 0.5) / 2 - 0.5 through eight bilinear samples:
// c ± (offset, 0) and c ± (0, offset) with weight 1, c ± offset/2·(1, ±1)
// with weight 2, / 12. The output has the size of the level it returns to.
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
  vec2 c = (vec2(p) + 0.5) / 2.0 - 0.5;
  float o = pc.offset;
  float h = 0.5 * o;
  vec4 sum = Bilinear(c + vec2(-o, 0.0), pc.src_size, pc.border);
  sum += Bilinear(c + vec2(o, 0.0), pc.src_size, pc.border);
  sum += Bilinear(c + vec2(0.0, -o), pc.src_size, pc.border);
  sum += Bilinear(c + vec2(0.0, o), pc.src_size, pc.border);
  sum += 2.0 * Bilinear(c + vec2(-h, -h), pc.src_size, pc.border);
  sum += 2.0 * Bilinear(c + vec2(h, -h), pc.src_size, pc.border);
  sum += 2.0 * Bilinear(c + vec2(-h, h), pc.src_size, pc.border);
  sum += 2.0 * Bilinear(c + vec2(h, h), pc.src_size, pc.border);
  STORE_PIXEL(dst, uint(p.y) * uint(pc.dst_size.x) + uint(p.x), sum / 12.0);
}
