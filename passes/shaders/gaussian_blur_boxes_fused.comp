#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "large_radius", one dispatch per axis (the fused path): a
// workgroup loads kLines whole lines into shared memory, turns them into
// prefix sums there and computes every output of those lines from them, so
// the image is read once and written once, like a copy. Used where the
// lines fit shared memory (passes/blur_variants/large_radius.cc chooses);
// longer lines take gaussian_blur_prefix.comp + gaussian_blur_boxes.comp.
//
// Precision: the sums are of p − m, m the line's mean, so they stay near
// zero for most lines instead of growing to n·mean (fp32 loses less the
// smaller they are), and m is added back once per output: Σ c_i·count_i·m.
// Each invocation scans a segment of kSegment pixels (Kahan-compensated)
// from an offset that a Hillis–Steele scan of the segment totals gives.
//
// The box sums and the closed-form borders are those of
// gaussian_blur_boxes.comp (see there), on the mean-free line.
//
// Shared layout: slot j of line c holds S(j), the sum of the line's first j
// pixels (slot 0 holds 0, so S needs no branch). Rows: line c's slots are
// contiguous; columns: the kLines lines of one j are adjacent, matching the
// memory order so that loads and stores of a row of the strip coalesce.
// kSegment is odd: invocations scanning consecutive segments then hit
// different shared-memory banks.
#include "shader_interface.h"
#include "working_format.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint kThreads = 256;
layout(constant_id = 1) const uint kLines = 1;    // power of two, ≤ kThreads
// Pixels per line the shared arrays hold, >= pc.n (the planner rounds it up
// so that lines of several lengths share a pipeline).
layout(constant_id = 2) const uint kCapacity = 1;
layout(constant_id = 3) const uint kSegment = 1;  // pixels per scanning invocation, odd
layout(constant_id = 4) const uint kColumns = 0;  // 1: lines are columns

// Same block as gaussian_blur_boxes.comp (passes/blur_variants/large_radius.cc).
layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;
  uint pixel_stride;
  uint segment;
  uint border;
  uint boxes;
} pc;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);
// (coefficient, half width) per box.
layout(std430, binding = 2) readonly buffer BoxesBlock { vec2 boxes[]; };

const uint kSegments = kThreads / kLines;  // scanning invocations per line
const uint kMaxBoxes = 8;                  // kLargeRadiusBoxes

shared vec4 sums[kLines * (kCapacity + 1)];
shared vec4 totals[kThreads];
shared vec4 line_mean[kLines];
shared vec4 line_first[kLines];  // p(0) − m and p(n−1) − m, for clamp
shared vec4 line_last[kLines];
shared vec2 box_table[kMaxBoxes];

uint Slot(uint line, uint j) { return kColumns != 0u ? j * kLines + line : line * (kCapacity + 1u) + j; }

vec4 S(uint line, int j) { return sums[Slot(line, uint(j))]; }

int FloorDiv(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// The sum of mean-free extended pixels lo..hi−1 (lo ≤ hi).
vec4 Range(uint line, int lo, int hi) {
  int n = int(pc.n);
  if (lo >= 0 && hi <= n) return S(line, hi) - S(line, lo);
  if (pc.border == RGFX_BORDER_WRAP || pc.border == RGFX_BORDER_MIRROR) {
    bool mirror = pc.border == RGFX_BORDER_MIRROR;
    vec4 total = S(line, n);  // read here only: most outputs are interior
    int period = mirror ? 2 * n : n;
    vec4 period_sum = mirror ? 2.0 * total : total;
    int qlo = FloorDiv(lo, period), qhi = FloorDiv(hi, period);
    int rlo = lo - qlo * period, rhi = hi - qhi * period;
    vec4 mlo = rlo <= n ? S(line, rlo) : period_sum - S(line, 2 * n - rlo);
    vec4 mhi = rhi <= n ? S(line, rhi) : period_sum - S(line, 2 * n - rhi);
    return float(qhi - qlo) * period_sum + (mhi - mlo);
  }
  int a = clamp(lo, 0, n), b = clamp(hi, 0, n);
  vec4 sum = S(line, b) - S(line, a);
  if (pc.border == RGFX_BORDER_CLAMP) {
    sum += float(max(min(hi, 0) - lo, 0)) * line_first[line] +
           float(max(hi - max(lo, n), 0)) * line_last[line];
  }
  return sum;
}

// Flat index f over the workgroup's kLines × n pixels, in memory order.
void Locate(uint f, out uint line, out uint i) {
  if (kColumns != 0u) {
    line = f % kLines;
    i = f / kLines;
  } else {
    line = f / pc.n;
    i = f % pc.n;
  }
}

void main() {
  uint t = gl_LocalInvocationID.x;
  uint first_line = gl_WorkGroupID.x * kLines;
  if (t < pc.boxes) box_table[t] = boxes[t];
  // 1. Load: pixel i of line c into slot i + 1; slot 0 is 0.
  for (uint f = t; f < kLines * pc.n; f += kThreads) {
    uint line, i;
    Locate(f, line, i);
    uint global_line = first_line + line;
    vec4 p = vec4(0.0);
    if (global_line < pc.lines) {
      p = LOAD_PIXEL(src, global_line * pc.line_stride + i * pc.pixel_stride);
    }
    sums[Slot(line, i + 1u)] = p;
  }
  if (t < kLines) sums[Slot(t, 0u)] = vec4(0.0);
  barrier();

  // 2. Segment totals, then each line's mean (tree reduction).
  uint line = kColumns != 0u ? t % kLines : t / kSegments;
  uint seg = kColumns != 0u ? t / kLines : t % kSegments;
  uint begin = min(seg * kSegment, pc.n), end = min(begin + kSegment, pc.n);
  vec4 total = vec4(0.0);
  for (uint i = begin; i < end; ++i) total += sums[Slot(line, i + 1u)];
  uint at = line * kSegments + seg;
  totals[at] = total;
  if (seg == 0u) line_first[line] = sums[Slot(line, 1u)];
  if (seg == 0u) line_last[line] = sums[Slot(line, pc.n)];
  barrier();
  for (uint half_ = kSegments / 2u; half_ > 0u; half_ >>= 1) {
    if (seg < half_) totals[at] += totals[at + half_];
    barrier();
  }
  vec4 mean = totals[line * kSegments] / float(pc.n);
  barrier();  // everyone has read the total before it is overwritten

  // 3. Inclusive scan (Hillis–Steele) of the mean-free segment totals.
  totals[at] = total - float(end - begin) * mean;
  if (seg == 0u) {
    line_mean[line] = mean;
    line_first[line] -= mean;
    line_last[line] -= mean;
  }
  barrier();
  for (uint offset = 1u; offset < kSegments; offset <<= 1) {
    vec4 add = seg >= offset ? totals[at - offset] : vec4(0.0);
    barrier();
    totals[at] += add;
    barrier();
  }

  // 4. Each invocation rescans its segment from its offset, in place.
  precise vec4 run = seg > 0u ? totals[at - 1u] : vec4(0.0);
  precise vec4 carry = vec4(0.0);  // Kahan: what run lost
  for (uint i = begin; i < end; ++i) {
    uint slot = Slot(line, i + 1u);
    precise vec4 y = (sums[slot] - mean) - carry;
    precise vec4 s = run + y;
    carry = (s - run) - y;
    run = s;
    sums[slot] = run;
  }
  barrier();

  // m's factor in an output: Σ c_i · (real pixels box i counts), that is
  // Σ c_i · (2·w_i + 1) (≈ 1) except where zero borders cut boxes short.
  float full_weight = 0.0;
  for (uint b = 0u; b < pc.boxes; ++b) full_weight += box_table[b].x * (2.0 * box_table[b].y + 1.0);

  // 5. Every output of the workgroup's lines, written in memory order.
  for (uint f = t; f < kLines * pc.n; f += kThreads) {
    uint c, i;
    Locate(f, c, i);
    uint global_line = first_line + c;
    if (global_line >= pc.lines) continue;
    vec4 sum = vec4(0.0);
    float weight = pc.border == RGFX_BORDER_ZERO ? 0.0 : full_weight;
    int x = int(i);
    for (uint b = 0u; b < pc.boxes; ++b) {
      vec2 box = box_table[b];
      int w = int(box.y);
      int lo = x - w, hi = x + w + 1;
      sum += box.x * Range(c, lo, hi);
      if (pc.border == RGFX_BORDER_ZERO) weight += box.x * float(min(hi, int(pc.n)) - max(lo, 0));
    }
    STORE_PIXEL(dst, global_line * pc.line_stride + i * pc.pixel_stride,
                sum + weight * line_mean[c]);
  }
}
