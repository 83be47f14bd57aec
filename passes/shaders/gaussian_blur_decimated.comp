#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "decimated": line_cache with at most 2·half_taps+1 taps,
// every tap_step-th pixel (offsets j·tap_step, |j| ≤ half_taps), renormalised
// over the taps taken. An approximation for radii past the tap budget: the
// host states its error (passes/blur_variants/decimated.cc).
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"
#include "blur_line.glsl"
#include "blur_cache.glsl"

layout(local_size_x_id = 0) in;

void main() {
  uint line = gl_WorkGroupID.x;
  int reach = pc.half_taps * pc.tap_step;  // ≤ radius
  int chunk = ChunkOutputs(reach);
  for (int start = 0; start < int(pc.n); start += chunk) {
    int count = min(chunk, int(pc.n) - start);
    LoadChunk(line, start, count, reach);
    for (int i = start + int(gl_LocalInvocationIndex); i < start + count;
         i += int(gl_WorkGroupSize.x)) {
      vec4 sum = vec4(0.0);
      for (int j = -pc.half_taps; j <= pc.half_taps; ++j) {
        int k = j * pc.tap_step;
        sum += Weight(k) * CacheTap(i + k);
      }
      StoreOut(line, i, sum);
    }
  }
}
