#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "large_radius", dispatch 1 of an axis: the inclusive prefix
// sums of every line, in fp32 (S[i] = Σ_{j ≤ i} line[j]), written to a vec4
// temporary with the image's layout. A workgroup takes kLines adjacent lines
// (columns: their reads coalesce) × kSegments contiguous segments of each;
// each invocation sums its segment, the segment totals are scanned in shared
// memory, and each invocation rescans its segment from its offset. The
// rescan is Kahan-compensated: the stored sums are within about an ulp of
// the true ones, however long the line (passes/blur_variants/large_radius.cc
// states the rounding).
#include "shader_interface.h"
#include "working_format.glsl"

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 0) const uint kLines = 1;
layout(constant_id = 1) const uint kSegments = 1;

layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;
  uint pixel_stride;
  uint segment;  // pixels per invocation
  uint border;
  uint boxes;
} pc;

WORKING_BUFFER(0, readonly, src);
layout(std430, binding = 1) writeonly buffer SumsBlock { vec4 sums[]; };

shared vec4 totals[kLines * kSegments];

void main() {
  uint lane = gl_LocalInvocationID.x;
  uint seg = gl_LocalInvocationID.y;
  uint line = gl_WorkGroupID.x * kLines + lane;
  bool live = line < pc.lines;
  uint begin = min(seg * pc.segment, pc.n);
  uint end = min(begin + pc.segment, pc.n);
  uint base = line * pc.line_stride;
  vec4 total = vec4(0.0);
  if (live) {
    for (uint i = begin; i < end; ++i) total += LOAD_PIXEL(src, base + i * pc.pixel_stride);
  }
  totals[seg * kLines + lane] = total;
  barrier();
  // Inclusive scan of the segment totals (Hillis–Steele).
  for (uint offset = 1; offset < kSegments; offset <<= 1) {
    vec4 add = seg >= offset ? totals[(seg - offset) * kLines + lane] : vec4(0.0);
    barrier();
    totals[seg * kLines + lane] += add;
    barrier();
  }
  if (!live) return;
  precise vec4 run = seg > 0 ? totals[(seg - 1) * kLines + lane] : vec4(0.0);
  precise vec4 carry = vec4(0.0);  // Kahan: what run lost
  for (uint i = begin; i < end; ++i) {
    uint at = base + i * pc.pixel_stride;
    precise vec4 y = LOAD_PIXEL(src, at) - carry;
    precise vec4 t = run + y;
    carry = (t - run) - y;
    run = t;
    sums[at] = run;
  }
}
