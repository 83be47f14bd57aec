#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle_relative : require
// gaussian_blur "large_radius", recursive path: one dispatch per axis whose
// cost does not depend on the radius. The half kernel is a damped cosine
// Re(c·p^k), k = 0..radius (passes/blur_variants/recursive_fit.h), so
//   z(i) = p·z(i−1) + x(i) − q·x(i−r−1),  q = p^(r+1)
// holds z(i) = Σ_{k=0..r} p^k·x(i−k) exactly (the delayed subtraction
// truncates the window), w the same from the right, and the output is
// Re(c·(z + w)) + center·x: per pixel and channel about 30 flops and no
// table reads, where the box stack read 16 prefix sums.
//
// A workgroup loads kLines whole lines (rows, or a strip of adjacent
// columns, so that reads coalesce) into shared memory; each invocation owns
// a chunk of kChunk consecutive pixels of one line:
// 1. the recursions through its chunk from a zero state (z forwards; w as
//    Σ p^j·(x − q·x(+r+1)), the same sum);
// 2. a scan over the line's chunks gives each the state entering it: within
//    a subgroup by shuffles (Hillis–Steele with multiplier p^(kChunk·d)),
//    across the line's subgroups by one invocation per line and direction;
// 3. both recursions again from the true states in one pass forwards (w
//    through its inverse), the outputs in registers, then through shared
//    memory to memory order (stores coalesce too).
// Borders: clamp starts from the closed form Σ p^k·x(0) (and x(0) is what
// the delayed reads see past the edge), zero from 0; mirror and wrap run
// the recursions over the line extended by radius + 1 on each side
// (pc.extend) from 0, reading the extension through BorderIndex, and drop
// what lies outside from the delayed reads (the window is not yet full).
// Where shared memory allows (kMargined), the strip holds what every read
// beyond the line's ends would see, so the sweeps read it unchecked; for
// clamp and zero, where that does not fit, one such pixel at each end,
// which the reads clamp to.
// fp32 throughout; |p| < 1, so rounding errors fade instead of growing.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"
#include "phase_clock.glsl"

// CHANNEL_PAIRS: each workgroup takes two of the four channels (the
// lowest bit of gl_WorkGroupID.x: 0 for red and green, 1 for blue and
// alpha), so a line needs half the shared memory: rows too long for whole
// pixels still run here instead of through the box stack's two dispatches.
// The two halves of a row go to neighbouring workgroups, which run at
// about the same time: their reads share the cache, and their 8-byte (or
// 4-byte) writes meet in it before a sector leaves for memory. Pix is the
// arithmetic's type; StripPixel what the strip and the outputs hold.
#ifdef CHANNEL_PAIRS
#define Pix vec2
#define LINE_GROUP (gl_WorkGroupID.x >> 1)
#ifdef WORKING_F32
#define StripPixel vec2
#define TO_STRIP(value_) (value_)
#define FROM_STRIP(stored_) (stored_)
#define PAIR_OF(pixel_) ((gl_WorkGroupID.x & 1u) == 0u ? (pixel_).xy : (pixel_).zw)
#define STORE_PAIR(buffer_, index_, value_) \
  if ((gl_WorkGroupID.x & 1u) == 0u) buffer_[index_].xy = (value_); \
  else buffer_[index_].zw = (value_)
#else
#define StripPixel uint
#define TO_STRIP(value_) packHalf2x16(value_)
#define FROM_STRIP(stored_) unpackHalf2x16(stored_)
#define PAIR_OF(pixel_) ((gl_WorkGroupID.x & 1u) == 0u ? (pixel_).x : (pixel_).y)
#define STORE_PAIR(buffer_, index_, value_) \
  if ((gl_WorkGroupID.x & 1u) == 0u) buffer_[index_].x = (value_); \
  else buffer_[index_].y = (value_)
#endif
#else
#define Pix vec4
#define LINE_GROUP gl_WorkGroupID.x
#define StripPixel WORKING_PIXEL
#define TO_STRIP(value_) PACK_PIXEL(value_)
#define FROM_STRIP(stored_) UNPACK_PIXEL(stored_)
#define PAIR_OF(pixel_) (pixel_)
#define STORE_PAIR(buffer_, index_, value_) buffer_[index_] = (value_)
#endif

layout(local_size_x_id = 0) in;
layout(constant_id = 0) const uint kThreads = 32;  // kLines × chunk slots per line
layout(constant_id = 1) const uint kLines = 1;
// Pixels per line the shared strip holds, >= pc.n + 2·Margin() (rounded
// up by the planner so that lines of several lengths share a pipeline).
layout(constant_id = 2) const uint kCapacity = 1;
layout(constant_id = 3) const uint kColumns = 0;  // 1: lines are columns
// The device's subgroup size; chunk slots per line are a multiple of it.
layout(constant_id = 4) const uint kSubgroupSize = 32;
// 1 for mirror and wrap (pc.extend > 0): reads take the general border
// mapping. Clamp and zero never read beyond the extended domain's ends
// except in delayed reads, which clamp their index (a pipeline without the
// modulo arithmetic: smaller code, measured on the H100).
layout(constant_id = 5) const uint kExtended = 0;
// 1 where the strip also holds Margin() pixels beyond each end of the
// recursions' domain, filled after the load from the line in the strip
// through the border (zeros where the window is not yet full): every read
// in the sweeps is then a plain shared-memory read, with no clamp, range
// check or border mapping. The planner turns it off where the margins do
// not fit shared memory or would let fewer workgroups run at once
// (RecursiveResidentWorkgroups).
// 2 (clamp and zero only, kExtended 0): one pixel at each end instead,
// what every read beyond that end sees (the end pixel, or 0), and each
// read clamps its index to it: no border select, for 2 pixels of shared
// memory a line instead of 2·(radius + 1). The planner's choice where the
// full margins are off (on the H100, 1080p RGBA16F rows at r = 256 went
// 33.8 -> 30.5-31.7 µs in two calls; where full margins fit, they were
// faster: 29.7 against 30.5 at r = 64).
layout(constant_id = 7) const uint kMargined = 0;
// The temporary between the two axes in strips of S columns (1: the
// image's own layout): pixel (x, y) at (x / S)·S·H + y·S + x % S. With
// S = kLines (the plan's) a column workgroup's strip is one contiguous run
// of memory and its loads take whole runs instead of S pixels of each row;
// a measurement may set a multiple of kLines. The row pass
// writes it so (kOutStrip = S; H is its pc.lines), the column pass reads it
// so (kInStrip = S; H is its pc.n); pc's strides are then unused for it
// (StripTheRecursiveTemporary in passes/blur_variants/large_radius.cc).
layout(constant_id = 8) const uint kInStrip = 1;
layout(constant_id = 9) const uint kOutStrip = 1;

// Must match RecursivePush in passes/blur_variants/large_radius.h.
layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;
  uint pixel_stride;
  uint border;
  uint radius;
  uint extend;  // pixels the recursions run beyond each end (mirror, wrap)
} pc;

// Pixels the strip holds beyond each end of the recursions' domain: the
// delayed reads' reach with full margins, 1 with clamped ones, and a
// constant 0 without, so that pipeline's code is as before.
uint Margin() {
  return kMargined == 1u ? pc.extend + pc.radius + 1u : kMargined == 2u ? 1u : 0u;
}

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);
// p, q = p^(radius+1), c, Σ_{k=0..radius} p^k, (center, 0), 1/p.
layout(std430, binding = 2) readonly buffer RecursionBlock { vec2 recursion[]; };

// Pixels per invocation (its outputs stay in registers): the line spread
// evenly over its slots, at most 16 (ChooseRecursiveGeometry in
// passes/blur_variants/large_radius.cc).
layout(constant_id = 6) const uint kChunk = 16;
const uint kSlots = kThreads / kLines;          // chunk slots per line
const uint kGroups = kSlots / kSubgroupSize;    // subgroups per line
// Spare slots, so that a subgroup's invocations (a chunk apart) read
// different shared-memory banks. Rows: one per chunk where the chunk is
// even (16 -> stride 17; 15 needs none: with one per 16 there, chunks of
// 15 made the pass 37% slower on the H100); columns: one per chunk, so
// that lanes are 2·kChunk + 1 slots apart, an odd stride (one per 16 px
// left 8-byte reads 1.5x the ideal wavefronts at chunks of 12 and 14; on
// the H100 one per chunk made 1080p RGBA32F columns 60.2 -> 59.1 µs and
// 4K RGBA16F 167.4 -> 165.6, 1080p RGBA16F level at 45.3).
const uint kSpare = (kChunk & 1u) == 0u ? 1u : 0u;
const uint kPadded = kCapacity + kCapacity / kChunk + 1u;  // per line; must match the planner

shared StripPixel strip[kLines * kPadded];
// Per direction, line and subgroup: its total, then the state entering it.
shared Pix carry_re[2u * kLines * kGroups];
shared Pix carry_im[2u * kLines * kGroups];

// The channels (four, or two with CHANNEL_PAIRS) of a complex state.
struct C4 {
  Pix re;
  Pix im;
};

vec2 Mul(vec2 a, vec2 b) { return vec2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }

C4 Scale(vec2 a, C4 z) { return C4(a.x * z.re - a.y * z.im, a.x * z.im + a.y * z.re); }

C4 Add(C4 a, C4 b) { return C4(a.re + b.re, a.im + b.im); }

vec2 Power(vec2 p, uint e) {
  vec2 result = vec2(1.0, 0.0);
  for (; e != 0u; e >>= 1) {
    if ((e & 1u) != 0u) result = Mul(result, p);
    p = Mul(p, p);
  }
  return result;
}

uint Slot(uint line, uint i) {
  return kColumns != 0u ? i * kLines + line + i / kChunk
                        : line * kPadded + i + kSpare * (i / kChunk);
}

// Flat index f over the workgroup's kLines lines of `length` pixels, in
// memory order. One row per workgroup (the planner's choice for rows)
// needs no division by the length: on the H100 the runtime division made
// the row kernel's load loop ~34 instructions a pixel, and its store loop
// 36.
void Locate(uint f, uint length, out uint line, out uint i) {
  const bool one_row = kColumns == 0u && kLines == 1u;
  line = one_row ? 0u : kColumns != 0u ? f % kLines : f / length;
  i = one_row ? f : kColumns != 0u ? f / kLines : f % length;
}

// Where the strip's pixel i (any offset the sweeps read) comes from in
// the line: its index there, or -1 for zero.
int SourceIndex(int i) {
  const int n = int(pc.n);
  if (kExtended != 0u && (i < -int(pc.extend) || i >= n + int(pc.extend))) return -1;
  return BorderIndex(i, n, pc.border);
}

// Where pixel i of line `line` (of pc.lines) is read and written.
uint InIndex(uint line, uint i) {
  if (kInStrip > 1u) return (line / kInStrip) * kInStrip * pc.n + line % kInStrip + i * kInStrip;
  return line * pc.line_stride + i * pc.pixel_stride;
}
uint OutIndex(uint line, uint i) {
  if (kOutStrip > 1u) {
    return line * kOutStrip + (i / kOutStrip) * kOutStrip * pc.lines + i % kOutStrip;
  }
  return line * pc.line_stride + i * pc.pixel_stride;
}

// Pixel i (any offset) of the workgroup's line, through the border.
Pix X(uint line, int i) {
  if (kMargined == 1u) return FROM_STRIP(strip[Slot(line, uint(i + int(Margin())))]);
  if (kMargined == 2u) return FROM_STRIP(strip[Slot(line, uint(clamp(i, -1, int(pc.n)) + 1))]);
  const int n = int(pc.n);
  if (kExtended == 0u) {
    // Clamp: the nearest pixel; zero: nothing.
    const Pix v = FROM_STRIP(strip[Slot(line, uint(clamp(i, 0, n - 1)))]);
    return pc.border == RGFX_BORDER_ZERO && (i < 0 || i >= n) ? Pix(0.0) : v;
  }
  const int j = BorderIndex(i, n, pc.border);
  return j < 0 ? Pix(0.0) : FROM_STRIP(strip[Slot(line, uint(j))]);
}

// A delayed read: past the extended domain [lo, hi) the window is not yet
// full and nothing leaves it.
Pix Delayed(uint line, int i, int lo, int hi) {
  if (kMargined == 0u && kExtended != 0u && (i < lo || i >= hi)) return Pix(0.0);
  return X(line, i);
}

// z ← p·z + x − q·x_delayed.
void Step(inout C4 z, vec2 p, vec2 q, Pix x, Pix delayed) {
  const Pix re = p.x * z.re - p.y * z.im + x - q.x * delayed;
  z.im = p.x * z.im + p.y * z.re - q.y * delayed;
  z.re = re;
}

void main() {
  // Numbered by subgroup and lane, so that a line's chunks are consecutive
  // lanes.
  PHASE_START()
  const uint t = gl_SubgroupID * kSubgroupSize + gl_SubgroupInvocationID;
  const uint first_line = LINE_GROUP * kLines;
  const uint margin = Margin();

  // 1. Load the lines, kBatch loads in flight per invocation.
  const uint kBatch = 16u;
  const uint count = kLines * pc.n;
  for (uint f0 = 0u; f0 < count; f0 += kBatch * kThreads) {
    StripPixel v[kBatch];
    uint at[kBatch];
    [[unroll]] for (uint u = 0u; u < kBatch; ++u) {
      const uint f = f0 + u * kThreads + t;
      uint line, i;
      Locate(f, pc.n, line, i);
      at[u] = f < count && first_line + line < pc.lines ? Slot(line, i + margin) : 0xffffffffu;
      if (at[u] != 0xffffffffu) {
        v[u] = PAIR_OF(src[InIndex(first_line + line, i)]);
      }
    }
    [[unroll]] for (uint u = 0u; u < kBatch; ++u) {
      if (at[u] != 0xffffffffu) strip[at[u]] = v[u];
    }
  }
  barrier();
  // The margins, from the line now in the strip (a short loop: mapping
  // every load of the batch above through the border made the code 50%
  // larger and the pass slower on the H100).
  if (kMargined != 0u) {
    const uint side = 2u * margin;  // margin pixels per line
    [[dont_unroll]] for (uint f = t; f < kLines * side; f += kThreads) {
      uint line, k;
      Locate(f, side, line, k);
      const int i = k < margin ? int(k) - int(margin) : int(pc.n + k - margin);
      const int from = SourceIndex(i);
      strip[Slot(line, uint(i + int(margin)))] =
          from < 0 ? StripPixel(0) : strip[Slot(line, uint(from) + margin)];
    }
    barrier();
  }
  PHASE_MARK(phase_staged)

  const uint line = t / kSlots;
  const uint chunk = t % kSlots;
  const uint lane = gl_SubgroupInvocationID;  // = chunk % kSubgroupSize
  const uint group = chunk / kSubgroupSize;
  const int n = int(pc.n);
  const int lo = -int(pc.extend), hi = n + int(pc.extend);
  const uint chunks = (uint(hi - lo) + kChunk - 1u) / kChunk;
  const int start = lo + int(chunk * kChunk);
  const int len = clamp(hi - start, 0, int(kChunk));
  const int r1 = int(pc.radius) + 1;
  const vec2 p = recursion[0], q = recursion[1], c = recursion[2], sum_p = recursion[3];
  const float center = recursion[4].x;
  const C4 zero = C4(Pix(0.0), Pix(0.0));

  // 2. Through the chunk from zero states.
  C4 z = zero, w = zero;
  vec2 pj = vec2(1.0, 0.0);
  // Not unrolled: no array to keep in registers here, and the unrolled
  // loops made the pipeline ~300 KB of code.
  [[dont_unroll]] for (int j = 0; j < len; ++j) {
    const int i = start + j;
    const Pix x = X(line, i);
    Step(z, p, q, x, Delayed(line, i - r1, lo, hi));
    const Pix ahead = Delayed(line, i + r1, lo, hi);
    const vec2 pq = Mul(pj, q);
    w.re += pj.x * x - pq.x * ahead;
    w.im += pj.y * x - pq.y * ahead;
    pj = Mul(pj, p);
  }
  PHASE_MARK(phase_swept)
  // The states entering the line's ends, folded into its end chunks.
  C4 left = zero, right = zero;
  if (pc.border == RGFX_BORDER_CLAMP) {
    const Pix first = X(line, 0), last = X(line, n - 1);
    left = C4(sum_p.x * first, sum_p.y * first);
    right = C4(sum_p.x * last, sum_p.y * last);
  }
  // pj is p^len now (the powers below come from the loops already run, not
  // from Power's loop per invocation: its runtime exponents diverge).
  if (chunk == 0u) z = Add(z, Scale(pj, left));
  if (chunk == chunks - 1u) w = Add(w, Scale(pj, right));

  // 3. Scan within the subgroup: z over the chunks before (and including)
  // this one, w over those after; every chunk but the line's last is
  // kChunk long, and the last's length only enters through `right`.
  // pd is chunk_power^d; to_lane gathers chunk_power^(lane + 1) from the
  // lane's bits, from_lane chunk_power^(kSubgroupSize - lane) from the
  // others (what the carries entering the subgroup need below).
  const vec2 chunk_power = Power(p, kChunk);
  vec2 pd = chunk_power, to_lane = chunk_power, from_lane = chunk_power;
  [[unroll]] for (uint d = 1u; d < kSubgroupSize; d <<= 1) {
    const C4 before = C4(subgroupShuffleUp(z.re, d), subgroupShuffleUp(z.im, d));
    const C4 after = C4(subgroupShuffleDown(w.re, d), subgroupShuffleDown(w.im, d));
    if (lane >= d) z = Add(z, Scale(pd, before));
    if (lane + d < kSubgroupSize) w = Add(w, Scale(pd, after));
    if ((lane & d) != 0u) {
      to_lane = Mul(to_lane, pd);
    } else {
      from_lane = Mul(from_lane, pd);
    }
    pd = Mul(pd, pd);
  }
  // Across the line's subgroups.
  const uint causal_at = line * kGroups + group;
  const uint anti_at = kLines * kGroups + causal_at;
  if (lane == kSubgroupSize - 1u) {
    carry_re[causal_at] = z.re;
    carry_im[causal_at] = z.im;
  }
  if (lane == 0u) {
    carry_re[anti_at] = w.re;
    carry_im[anti_at] = w.im;
  }
  barrier();
  if (t < 2u * kLines) {
    const uint l = t >> 1;
    const bool from_right = (t & 1u) != 0u;
    const vec2 group_power = pd;  // chunk_power^kSubgroupSize
    C4 carry = zero;
    for (uint k = 0u; k < kGroups; ++k) {
      const uint g = from_right ? kGroups - 1u - k : k;
      const uint at = (from_right ? kLines * kGroups : 0u) + l * kGroups + g;
      const C4 total = C4(carry_re[at], carry_im[at]);
      carry_re[at] = carry.re;
      carry_im[at] = carry.im;
      carry = Add(total, Scale(group_power, carry));
    }
  }
  barrier();
  const C4 causal_in = C4(carry_re[causal_at], carry_im[causal_at]);
  const C4 anti_in = C4(carry_re[anti_at], carry_im[anti_at]);
  PHASE_MARK(phase_scanned)
  z = Add(z, Scale(to_lane, causal_in));
  w = Add(w, Scale(from_lane, anti_in));
  // z's state before this chunk: the previous chunk's (or the carry); w's
  // at its start is this chunk's own.
  C4 before = C4(subgroupShuffleUp(z.re, 1u), subgroupShuffleUp(z.im, 1u));
  if (lane == 0u) before = causal_in;
  if (chunk == 0u) before = left;

  // 4. Both recursions again from the true states, in one pass forwards:
  // z as in 2., w backwards through its inverse,
  //   w(i+1) = (w(i) − x(i) + q·x(i+r+1)) / p,
  // whose rounding errors grow by 1/|p| a step, at most |p|^−kChunk within
  // a chunk (the planner keeps that <= 256). One pass reads each pixel once
  // here and needs no second array of outputs.
  // The outputs wait here in the working format (RGBA16F: packed, half the
  // registers; they are rounded to it when stored anyway).
  StripPixel result[kChunk];
  C4 a = w;
  const vec2 inverse = recursion[5];
  [[unroll]] for (int j = 0; j < int(kChunk); ++j) {
    if (j < len) {
      const int i = start + j;
      const Pix x = X(line, i);
      Step(before, p, q, x, Delayed(line, i - r1, lo, hi));
      result[j] = TO_STRIP(c.x * (before.re + a.re) - c.y * (before.im + a.im) + center * x);
      const Pix ahead = Delayed(line, i + r1, lo, hi);
      const Pix re = a.re - x + q.x * ahead, im = a.im + q.y * ahead;
      a.re = inverse.x * re - inverse.y * im;
      a.im = inverse.x * im + inverse.y * re;
    }
  }
  PHASE_MARK(phase_computed)
  barrier();  // every chunk has read the strip
  [[unroll]] for (int j = 0; j < int(kChunk); ++j) {
    const int i = start + j;
    if (j < len && i >= 0 && i < n) strip[Slot(line, uint(i) + margin)] = result[j];
  }
  barrier();
  PHASE_MARK(phase_outputs)
  for (uint f = t; f < count; f += kThreads) {
    uint l, i;
    Locate(f, pc.n, l, i);
    if (first_line + l < pc.lines) {
      STORE_PAIR(dst, OutIndex(first_line + l, i),
                 strip[Slot(l, i + margin)]);
    }
  }
  PHASE_END()
}
