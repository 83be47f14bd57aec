#version 450
#extension GL_GOOGLE_include_directive : require
// The reference Gaussian blur: one invocation per output pixel along one
// axis, every tap read from the buffer, weights precomputed (in double, on
// the host) and normalised. No shared memory, so no limit on line length or
// radius. Correct first; the faster variants are checked against it.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);
layout(std430, binding = 2) readonly buffer WeightsBlock { float weights[]; };  // [0..radius]

layout(push_constant) uniform Push {
  uint width;
  uint height;
  int radius;
  uint axis;    // RGFX_AXIS_*
  uint border;  // RGFX_BORDER_*
} pc;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  bool horizontal = pc.axis == RGFX_AXIS_HORIZONTAL;
  int n = int(horizontal ? pc.width : pc.height);
  int pos = int(horizontal ? p.x : p.y);
  // Index of the line's first pixel and the step between its pixels.
  uint base = horizontal ? p.y * pc.width : p.x;
  uint stride = horizontal ? 1u : pc.width;

  vec4 sum = vec4(0.0);
  for (int k = -pc.radius; k <= pc.radius; ++k) {
    int i = BorderIndex(pos + k, n, pc.border);
    if (i < 0) continue;
    sum += weights[abs(k)] * LOAD_PIXEL(src, base + uint(i) * stride);
  }
  STORE_PIXEL(dst, p.y * pc.width + p.x, sum);
}
