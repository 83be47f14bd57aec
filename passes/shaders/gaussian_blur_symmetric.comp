#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "symmetric": line_cache, with each weight computed once for
// the pair of taps at ±k (the kernel is even), halving the exp() calls and
// multiplies. Every tap is kept, so it stays exact.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"
#include "blur_line.glsl"
#include "blur_cache.glsl"

layout(local_size_x_id = 0) in;

void main() {
  uint line = gl_WorkGroupID.x;
  int chunk = ChunkOutputs(pc.radius);
  for (int start = 0; start < int(pc.n); start += chunk) {
    int count = min(chunk, int(pc.n) - start);
    LoadChunk(line, start, count, pc.radius);
    for (int i = start + int(gl_LocalInvocationIndex); i < start + count;
         i += int(gl_WorkGroupSize.x)) {
      vec4 sum = pc.inv_total * CacheTap(i);  // Weight(0)
      for (int k = 1; k <= pc.radius; ++k) {
        sum += Weight(k) * (CacheTap(i - k) + CacheTap(i + k));
      }
      StoreOut(line, i, sum);
    }
  }
}
