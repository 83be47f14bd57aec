#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "naive", the first step of the published lineage: one
// workgroup per line, each invocation walks the line's pixels, reads every tap
// from the buffer and computes every weight with exp(). No shared memory, so
// no limit on line length or radius.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"
#include "blur_line.glsl"

layout(local_size_x_id = 0) in;

void main() {
  uint line = gl_WorkGroupID.x;
  for (int i = int(gl_LocalInvocationIndex); i < int(pc.n); i += int(gl_WorkGroupSize.x)) {
    vec4 sum = vec4(0.0);
    for (int k = -pc.radius; k <= pc.radius; ++k) {
      sum += Weight(k) * LinePixel(line, i + k);
    }
    StoreOut(line, i, sum);
  }
}
