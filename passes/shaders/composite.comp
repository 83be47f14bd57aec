#version 450
#extension GL_GOOGLE_include_directive : require
// composite: add (a + factor·b) or mix ((1 - factor)·a + factor·b) of two
// images of the same size, in premultiplied linear light.
#include "shader_interface.h"
#include "working_format.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, a);
WORKING_BUFFER(1, readonly, b);
WORKING_BUFFER(2, writeonly, dst);

layout(push_constant) uniform Push {
  uint width;
  uint height;
  uint mode;  // RGFX_COMPOSITE_*
  float factor;
} pc;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  uint i = p.y * pc.width + p.x;
  vec4 va = LOAD_PIXEL(a, i);
  vec4 vb = LOAD_PIXEL(b, i);
  vec4 result = pc.mode == RGFX_COMPOSITE_ADD ? va + pc.factor * vb : mix(va, vb, pc.factor);
  STORE_PIXEL(dst, i, result);
}
