#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "large_radius", dispatch 2 of an axis: each output is
// Σ_i c_i · (P(x + w_i + 1) − P(x − w_i)), where P(j) is the sum of the
// first j pixels of the border-extended line, computed in closed form from
// the real line's prefix sums S (dispatch 1) so every border is exact:
//   clamp:  P(j) = j·line[0] for j < 0, S(n) + (j − n)·line[n−1] for j > n
//   zero:   P(j) = 0 for j < 0, S(n) for j > n
//   wrap:   P(j) = q·S(n) + S(r), j = q·n + r, 0 ≤ r < n
//   mirror: P(j) = q·2S(n) + M(r), j = q·2n + r, M(r) = S(r) for r ≤ n,
//           2S(n) − S(2n − r) beyond (the line reflected, edge repeated)
// For the periodic modes the whole periods of the two ends are subtracted
// as integers first, so radii far beyond the line lose no precision.
// Invocation x walks the memory's fast axis: the line for rows, the lines
// (adjacent columns) for columns.
#include "shader_interface.h"
#include "working_format.glsl"

layout(local_size_x = 64, local_size_y = 4) in;

layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;
  uint pixel_stride;
  uint segment;
  uint border;
  uint boxes;  // entries of `boxes`
} pc;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);
layout(std430, binding = 2) readonly buffer SumsBlock { vec4 sums[]; };
// (coefficient, half width) per box.
layout(std430, binding = 3) readonly buffer BoxesBlock { vec2 boxes[]; };

uint base;

// S(j) for 0 ≤ j ≤ n: the sum of the line's first j pixels.
vec4 S(int j) { return j == 0 ? vec4(0.0) : sums[base + uint(j - 1) * pc.pixel_stride]; }

int FloorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// P(hi) − P(lo) for lo ≤ hi: the sum of extended pixels lo..hi−1.
vec4 Range(int lo, int hi, vec4 total, vec4 first, vec4 last) {
  int n = int(pc.n);
  if (lo >= 0 && hi <= n) return S(hi) - S(lo);
  if (pc.border == RGFX_BORDER_WRAP || pc.border == RGFX_BORDER_MIRROR) {
    bool mirror = pc.border == RGFX_BORDER_MIRROR;
    int period = mirror ? 2 * n : n;
    vec4 period_sum = mirror ? 2.0 * total : total;
    int qlo = FloorDiv(lo, period), qhi = FloorDiv(hi, period);
    int rlo = lo - qlo * period, rhi = hi - qhi * period;
    vec4 mlo = rlo <= n ? S(rlo) : period_sum - S(2 * n - rlo);
    vec4 mhi = rhi <= n ? S(rhi) : period_sum - S(2 * n - rhi);
    return float(qhi - qlo) * period_sum + (mhi - mlo);
  }
  // clamp or zero: the inside part plus the edge pixels repeated (or 0).
  int a = clamp(lo, 0, n), b = clamp(hi, 0, n);
  vec4 sum = S(b) - S(a);
  if (pc.border == RGFX_BORDER_CLAMP) {
    sum += float(max(min(hi, 0) - lo, 0)) * first + float(max(hi - max(lo, n), 0)) * last;
  }
  return sum;
}

void main() {
  bool rows = pc.pixel_stride == 1u;
  // Columns: the workgroups are numbered along the column first
  // (gl_WorkGroupID.x), so those in flight at once share a strip of 64
  // columns and the sums their boxes read (up to radius rows away) stay in
  // the cache; numbered across the image first, they spanned every column
  // and 2·radius rows of sums, more than the cache holds at large radii.
  uint line = rows ? gl_GlobalInvocationID.y
                   : gl_WorkGroupID.y * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  uint i = rows ? gl_GlobalInvocationID.x
                : gl_WorkGroupID.x * gl_WorkGroupSize.y + gl_LocalInvocationID.y;
  if (line >= pc.lines || i >= pc.n) return;
  base = line * pc.line_stride;
  vec4 total = S(int(pc.n));
  vec4 first = vec4(0.0), last = vec4(0.0);
  if (pc.border == RGFX_BORDER_CLAMP) {
    first = LOAD_PIXEL(src, base);
    last = LOAD_PIXEL(src, base + (pc.n - 1u) * pc.pixel_stride);
  }
  vec4 sum = vec4(0.0);
  int x = int(i);
  for (uint b = 0; b < pc.boxes; ++b) {
    vec2 box = boxes[b];
    int w = int(box.y);
    sum += box.x * Range(x - w, x + w + 1, total, first, last);
  }
  STORE_PIXEL(dst, base + i * pc.pixel_stride, sum);
}
