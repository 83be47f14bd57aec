#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "line_cache": the line is loaded once into workgroup shared
// memory and every tap is read from there; weights still come from exp() per
// tap, as published. Lines longer than the cache run in chunks with a halo
// of radius pixels each side (blur_cache.glsl).
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
      vec4 sum = vec4(0.0);
      for (int k = -pc.radius; k <= pc.radius; ++k) sum += Weight(k) * CacheTap(i + k);
      StoreOut(line, i, sum);
    }
  }
}
