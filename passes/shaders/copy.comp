#version 450
#extension GL_GOOGLE_include_directive : require
// Copies a working-format image: one read and one write per pixel, the least
// any pass can do. Benchmarks time it to measure the copy-bandwidth floor.
#include "shader_interface.h"
#include "working_format.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);

layout(push_constant) uniform Push {
  uint width;
  uint height;
} pc;

void main() {
  uvec2 p = gl_GlobalInvocationID.xy;
  if (p.x >= pc.width || p.y >= pc.height) return;
  uint i = p.y * pc.width + p.x;
  dst[i] = src[i];  // raw words: no conversion, in either working format
}
