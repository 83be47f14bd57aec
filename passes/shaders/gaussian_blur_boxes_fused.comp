#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
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
// from an offset that a Hillis–Steele scan of the segment totals gives. The
// levels of that scan within a subgroup are shuffles (no barriers); only
// the levels across subgroups go through shared memory, one total per
// chunk (a line's segments in one subgroup). Measured on the H100 against
// a scan wholly in shared memory (two barriers per level): 1080p RGBA32F
// r = 64 166 -> 119 us (docs/PERFORMANCE.md).
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
// The device's subgroup size (kThreads is a multiple of it).
layout(constant_id = 5) const uint kSubgroupSize = 32;

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
// A line's segments in one subgroup (a chunk) are kStep lanes apart.
const uint kStep = kColumns != 0u ? kLines : 1u;
// (Spec-constant expressions allow no min/max calls.)
const uint kColumnChunk = kSubgroupSize > kLines ? kSubgroupSize / kLines : 1u;
const uint kRowChunk = kSubgroupSize < kSegments ? kSubgroupSize : kSegments;
const uint kChunk = kColumns != 0u ? kColumnChunk : kRowChunk;
const uint kChunks = kSegments / kChunk;  // per line
const uint kTotals = kLines * kChunks;

shared vec4 sums[kLines * (kCapacity + 1)];
shared vec4 totals[kTotals];
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

// Inclusive Hillis–Steele scan of v over the lanes of this invocation's
// chunk (k: its position there). Called in uniform control flow.
vec4 InclusiveInChunk(vec4 v, uint k) {
  [[unroll]] for (uint d = 1u; d < kChunk; d <<= 1) {
    const vec4 other = subgroupShuffleUp(v, d * kStep);
    if (k >= d) v += other;
  }
  return v;
}

void main() {
  // Numbered by subgroup and lane, so that consecutive t share a subgroup.
  const uint t = gl_SubgroupID * kSubgroupSize + gl_SubgroupInvocationID;
  uint first_line = gl_WorkGroupID.x * kLines;
  if (t < pc.boxes) box_table[t] = boxes[t];
  // 1. Load: pixel i of line c into slot i + 1; slot 0 is 0. Each
  // invocation issues kBatch loads before it stores any, so a workgroup
  // waits for memory once per batch, not once per pixel.
  const uint kBatch = 8u;
  const uint count = kLines * pc.n;
  for (uint f0 = 0u; f0 < count; f0 += kBatch * kThreads) {
    vec4 p[kBatch];
    [[unroll]] for (uint u = 0u; u < kBatch; ++u) {
      const uint f = f0 + u * kThreads + t;
      uint line, i;
      Locate(f, line, i);
      p[u] = vec4(0.0);
      if (f < count && first_line + line < pc.lines) {
        p[u] = LOAD_PIXEL(src, (first_line + line) * pc.line_stride + i * pc.pixel_stride);
      }
    }
    [[unroll]] for (uint u = 0u; u < kBatch; ++u) {
      const uint f = f0 + u * kThreads + t;
      uint line, i;
      Locate(f, line, i);
      if (f < count) sums[Slot(line, i + 1u)] = p[u];
    }
  }
  if (t < kLines) sums[Slot(t, 0u)] = vec4(0.0);
  barrier();

  // 2. Segment totals, then each line's mean.
  uint line = kColumns != 0u ? t % kLines : t / kSegments;
  uint seg = kColumns != 0u ? t / kLines : t % kSegments;
  uint begin = min(seg * kSegment, pc.n), end = min(begin + kSegment, pc.n);
  vec4 total = vec4(0.0);
  for (uint i = begin; i < end; ++i) total += sums[Slot(line, i + 1u)];
  // Position in the chunk, and where the chunk's totals go.
  const uint k = seg % kChunk;
  const uint chunk_at = line * kChunks + seg / kChunk;
  if (seg == 0u) line_first[line] = sums[Slot(line, 1u)];
  if (seg == 0u) line_last[line] = sums[Slot(line, pc.n)];
  // The line's total: each chunk's (shuffles), then the chunks' (shared).
  vec4 in_chunk = InclusiveInChunk(total, k);
  if (k == kChunk - 1u) totals[chunk_at] = in_chunk;
  barrier();
  vec4 line_total = vec4(0.0);
  for (uint c = 0u; c < kChunks; ++c) line_total += totals[line * kChunks + c];
  vec4 mean = line_total / float(pc.n);
  barrier();  // everyone has read the totals before they are overwritten

  // 3. Inclusive scan of the mean-free segment totals: within the chunk,
  // then across chunks (Hillis–Steele over one entry per chunk).
  const vec4 mean_free = total - float(end - begin) * mean;
  in_chunk = InclusiveInChunk(mean_free, k);
  // Exclusive within the chunk: the previous lane's inclusive value, exact.
  vec4 before = subgroupShuffleUp(in_chunk, kStep);
  if (k == 0u) before = vec4(0.0);
  if (k == kChunk - 1u) totals[chunk_at] = in_chunk;
  if (seg == 0u) {
    line_mean[line] = mean;
    line_first[line] -= mean;
    line_last[line] -= mean;
  }
  barrier();
  const bool owner = t < kTotals;  // owns entry t (line t / kChunks)
  for (uint offset = 1u; offset < kChunks; offset <<= 1) {
    vec4 add = owner && t % kChunks >= offset ? totals[t - offset] : vec4(0.0);
    barrier();
    if (owner) totals[t] += add;
    barrier();
  }
  const vec4 chunk_offset = seg >= kChunk ? totals[chunk_at - 1u] : vec4(0.0);
  // 4. Each invocation rescans its segment from its offset, in place.
  precise vec4 run = seg > 0u ? chunk_offset + before : vec4(0.0);
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

  // The boxes in registers, and the widest, which decides where an output
  // needs no border handling.
  vec2 box[kMaxBoxes];
  int widest = 0;
  [[unroll]] for (uint b = 0u; b < kMaxBoxes; ++b) {
    box[b] = b < pc.boxes ? box_table[b] : vec2(0.0);
    widest = max(widest, int(box[b].y));
  }
  // m's factor in an output: Σ c_i · (real pixels box i counts), that is
  // Σ c_i · (2·w_i + 1) (≈ 1) except where zero borders cut boxes short.
  float full_weight = 0.0;
  [[unroll]] for (uint b = 0u; b < kMaxBoxes; ++b) full_weight += box[b].x * (2.0 * box[b].y + 1.0);

  // 5. Every output of the workgroup's lines, written in memory order.
  for (uint f = t; f < count; f += kThreads) {
    uint c, i;
    Locate(f, c, i);
    uint global_line = first_line + c;
    if (global_line >= pc.lines) continue;
    vec4 sum = vec4(0.0);
    float weight = full_weight;
    const int x = int(i);
    if (x - widest >= 0 && x + widest + 1 <= int(pc.n)) {
      // Every box inside the line (most outputs): two reads per box.
      [[unroll]] for (uint b = 0u; b < kMaxBoxes; ++b) {
        const int w = int(box[b].y);
        if (b < pc.boxes) sum += box[b].x * (S(c, x + w + 1) - S(c, x - w));
      }
    } else {
      // Near the ends (unrolled too: a loop of unknown length would index
      // box[] dynamically and put it in memory).
      if (pc.border == RGFX_BORDER_ZERO) weight = 0.0;
      [[unroll]] for (uint b = 0u; b < kMaxBoxes; ++b) {
        if (b >= pc.boxes) continue;
        const int w = int(box[b].y);
        const int lo = x - w, hi = x + w + 1;
        sum += box[b].x * Range(c, lo, hi);
        if (pc.border == RGFX_BORDER_ZERO) weight += box[b].x * float(min(hi, int(pc.n)) - max(lo, 0));
      }
    }
    STORE_PIXEL(dst, global_line * pc.line_stride + i * pc.pixel_stride,
                sum + weight * line_mean[c]);
  }
}
