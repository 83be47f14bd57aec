#version 450
#extension GL_GOOGLE_include_directive : require
// downsample: shrinks by an integer factor. box averages each factor×factor
// block (the pixels of it inside the image, so odd edges are not darkened or
// doubled); tap13 (factor 2 only) is the 13-tap filtered downsample of
// Jimenez's bloom (Call of Duty: Advanced Warfare): five 2×2 boxes around the
// output pixel and eight one pixel further out, weighted 0.5 / 0.125 by
// group, written here as one 6×6 kernel over the source pixels
// 2x-2 .. 2x+3 with the border mode applied.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);

layout(push_constant) uniform Push {
  ivec2 src_size;
  ivec2 dst_size;
  int factor;
  uint filter_;  // RGFX_DOWNSAMPLE_*
  uint border;
} pc;

#include "sample2d.glsl"

// The 13 taps as one 6×6 table (in 1/128): for each source pixel, the sum
// over the 2×2 boxes (weight/4 each) that cover each source pixel.
// Rows and columns: offsets -2..3 from (2x, 2y). Sums to 1.
const float kTap13[36] = float[36](
    1.0, 1.0, 2.0, 2.0, 1.0, 1.0,
    1.0, 5.0, 6.0, 6.0, 5.0, 1.0,
    2.0, 6.0, 8.0, 8.0, 6.0, 2.0,
    2.0, 6.0, 8.0, 8.0, 6.0, 2.0,
    1.0, 5.0, 6.0, 6.0, 5.0, 1.0,
    1.0, 1.0, 2.0, 2.0, 1.0, 1.0);
const float kTap13Scale = 1.0 / 128.0;

void main() {
  ivec2 p = ivec2(gl_GlobalInvocationID.xy);
  if (p.x >= pc.dst_size.x || p.y >= pc.dst_size.y) return;
  vec4 sum = vec4(0.0);
  if (pc.filter_ == RGFX_DOWNSAMPLE_BOX) {
    ivec2 lo = p * pc.factor;
    ivec2 hi = min(lo + pc.factor, pc.src_size);
    for (int y = lo.y; y < hi.y; ++y) {
      for (int x = lo.x; x < hi.x; ++x) sum += Fetch(ivec2(x, y), pc.src_size, pc.border);
    }
    sum /= float((hi.x - lo.x) * (hi.y - lo.y));
  } else {
    ivec2 origin = 2 * p - 2;
    for (int v = 0; v < 6; ++v) {
      for (int u = 0; u < 6; ++u) {
        sum += kTap13[v * 6 + u] * Fetch(origin + ivec2(u, v), pc.src_size, pc.border);
      }
    }
    sum *= kTap13Scale;
  }
  STORE_PIXEL(dst, uint(p.y) * uint(pc.dst_size.x) + uint(p.x), sum);
}
