#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// branch_lab: what an if costs. Each pixel takes a fast path (one exp) or a
// slow path (the same exp plus a slow_iterations-term series), decided at
// compile time (specialization constant), by a push constant, or per thread
// (a fraction of the invocations of every workgroup). Built twice: with the
// branch kept ([[dont_flatten]]) and flattened ([[flatten]]: both sides run,
// then a select). The series' sum reaches the output only through a guard no
// compiler can prove false but that never holds (the partial sums of
// exp(-v), v in [0, 1], are ≥ 0), so the work stays and every mode writes
// bit-identical pixels: c · exp(-clamp(c, 0, 1)) per colour channel.
#include "shader_interface.h"
#include "working_format.glsl"

layout(local_size_x = RGFX_TILE_X, local_size_y = RGFX_TILE_Y) in;
layout(constant_id = 0) const uint kMode = RGFX_BRANCH_UNIFORM;
layout(constant_id = 1) const bool kStaticSlow = false;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);

layout(push_constant) uniform Push {
  uint width;
  uint height;
  uint first_row;  // this dispatch's band of rows
  uint slow;       // uniform mode: this band takes the slow path
  uint iterations;
  float fraction;  // divergent mode: of the invocations of a workgroup
} pc;

bool SlowPath() {
  if (kMode == RGFX_BRANCH_STATIC) return kStaticSlow;
  if (kMode == RGFX_BRANCH_UNIFORM) return pc.slow != 0;
  float t = float(gl_LocalInvocationIndex);
  return floor((t + 1.0) * pc.fraction) != floor(t * pc.fraction);
}

void main() {
  uvec2 p = uvec2(gl_GlobalInvocationID.x, gl_GlobalInvocationID.y + pc.first_row);
  if (p.x >= pc.width || p.y >= pc.height) return;
  uint i = p.y * pc.width + p.x;
  vec4 c = LOAD_PIXEL(src, i);
  vec3 v = clamp(c.rgb, 0.0, 1.0);
  vec3 result = c.rgb * exp(-v);
#ifdef BRANCH_FLATTEN
  [[flatten]]
#else
  [[dont_flatten]]
#endif
  if (SlowPath()) {
    vec3 term = vec3(1.0);
    vec3 sum = vec3(1.0);
    for (uint k = 1; k < pc.iterations; ++k) {
      term *= -v / float(k);
      sum += term;
    }
    if (any(lessThan(sum, vec3(-1.0)))) result = sum;
  }
  STORE_PIXEL(dst, i, vec4(result, c.a));
}
