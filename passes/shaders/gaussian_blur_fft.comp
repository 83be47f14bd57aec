#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// gaussian_blur "fast", one axis through the FFT: a line's convolution with
// the kernel is a product of their spectra, so every tap costs nothing once
// the line is transformed. Per pixel and channel about 2·5·log2(N) flops for
// the two transforms, against 2R + 1 multiply-adds a pixel and channel
// directly (r = 64: 129), whatever the radius (only N grows with it).
//
// One workgroup per segment of a line (overlap-save): its `segment`
// outputs and R pixels either side (the border where the line ends), laid
// out as N ≥ segment + 2R elements (a power of two; the right context after
// the outputs, the left one at the end, zeros between), which the circular
// convolution reads for no kept output across its ends. A line of n pixels
// is one segment where n + 2R fits N, else several: a shorter transform
// costs less per element (log2 N) than the overlap it reads twice where R
// is small against n (fast_fft.cc chooses N). The extended segment is two
// complex sequences, red + i·green and blue + i·alpha: the kernel is real,
// so the transform of their convolution
// carries both channels of each, and a vec4 is one element of both.
// Each invocation holds 16 elements in registers, element m being the
// segment's index j + kThreads·m (j the invocation): Stockham passes of radix
// 16 (the last one of radix 2, 4 or 8 where log2 N is not a multiple of 4)
// each read that set, transform groups of it and write the results where
// the next pass reads them, through shared memory. The last pass's results
// land in the invocation's own set again, so the spectrum is multiplied by
// the kernel's (real: the kernel is symmetric; divided by N for the inverse
// transform) in registers, and the inverse transform starts from there; its
// last pass leaves output j + kThreads·m in register m, stored straight to
// memory. Loads and stores coalesce (consecutive invocations, consecutive
// pixels); only the passes in between go through shared memory.
// Accuracy: fp32 throughout, twiddles from a table rounded from double
// (binding 2) and the kernel's spectrum computed in double (binding 3): a
// transform's rounding error grows with log2 N, not with the radius
// (blur_variants_tests: at most 2.4e-7 on images in [0, 1] against the
// double-precision reference, on lavapipe and the H200), but it is relative
// to the whole segment, hence the guard below.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"

// gl_LocalInvocationID.y: the invocation's place in its line's transform;
// .x: which of the workgroup's kLines lines (neighbours in memory: columns),
// so that a subgroup's loads and stores take kLines neighbouring pixels of
// each row it reads instead of one 16-byte pixel a row.
layout(local_size_x_id = 3, local_size_y_id = 0) in;
layout(constant_id = 0) const uint kThreads = 128;  // kSize / kPer
layout(constant_id = 1) const uint kSize = 2048;    // N, a power of two, >= 16·16
layout(constant_id = 2) const uint kBorder = 0;     // RGFX_BORDER_*
layout(constant_id = 3) const uint kLines = 1;      // lines a workgroup
// The temporary between the two axes in strips of kLines columns (1: the
// image's own layout): pixel (x, y) at (x / S)·S·H + y·S + x % S, so that a
// column workgroup's kLines columns are one contiguous run of memory and its
// subgroups' loads take whole 32-pixel runs instead of kLines pixels of
// each of 16 rows. The row pass writes it so (kOutStrip = S: its pixel
// index splits), the column pass reads it so (kInStrip = S: its line index
// splits); pc's strides are then a strip's and a pixel's within it
// (StripTheFftTemporary in passes/blur_variants/fast_fft.cc).
layout(constant_id = 4) const uint kInStrip = 1;
layout(constant_id = 5) const uint kOutStrip = 1;

// Must match FftPush in passes/blur_variants/fast_fft.cc.
layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;  // where the line's pixels are read
  uint pixel_stride;
  uint out_line_stride;  // and written
  uint out_pixel_stride;
  uint radius;
  uint segment;   // outputs a workgroup (the last one of a line: what is left)
  uint segments;  // workgroups a line (a channel pair's, with PAIRS)
} pc;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);
// exp(−2πi·t/N) for t < N.
layout(std430, binding = 2) readonly buffer TwiddleBlock { vec2 twiddle[]; };
// The kernel's spectrum over N: H[k] / N for k < N.
layout(std430, binding = 3) readonly buffer SpectrumBlock { float spectrum[]; };
// The kernel, w(0..R) (the guard's direct sums).
layout(std430, binding = 4) readonly buffer WeightBlock { float weight[]; };

// Elements per invocation, and the radix of every pass but the last: 16, or
// 8 (twice the invocations a line, for half the registers each).
#ifndef PER
#define PER 16
#endif
const uint kPer = PER;

// PAIRS: each workgroup takes one of the two sequences (the lowest bit of
// its index: 0 red + i green, 1 blue + i alpha), an element a vec2, so that
// a transform of twice the length fits the same shared memory (RGBA32F
// only). The two halves of a line go to neighbouring workgroups, whose
// reads share the cache and whose half-pixel writes meet in it.
#ifdef PAIRS
#define Elem vec2
#define LINE_OF(group_) ((group_) >> 1)
#define HALF_OF(pixel_, group_) (((group_) & 1u) == 0u ? (pixel_).xy : (pixel_).zw)
#define STORE_HALF(index_, value_, group_) \
  if (((group_) & 1u) == 0u) dst[index_].xy = (value_); else dst[index_].zw = (value_)
#else
#define Elem vec4
#define LINE_OF(group_) (group_)
#define HALF_OF(pixel_, group_) (pixel_)
#define STORE_HALF(index_, value_, group_) STORE_PIXEL(dst, index_, value_)
#endif
Elem a[kPer];          // element m: the segment's index j + kThreads·m
// The invocation's segment: its first output's index on the line, and how
// many outputs it has (0: the line is past the last one).
int first = 0;
int count = 0;
// Between passes. Indices are swizzled within blocks of kPer (Swizzled) so
// that the 8 invocations of a quarter subgroup writing 16-byte elements
// kPer apart (the first pass) hit different banks; the other passes' writes
// and every read take 8 consecutive elements of one block.
shared Elem exchange[kSize * kLines];
// Element i of the workgroup's line l: the lines' elements interleaved, so
// that neighbouring invocations (neighbouring lines) meet neighbouring
// banks.
uint SlotOf(uint i, uint l) { return i * kLines + l; }
// Element i of the invocation's own line.
uint Slot(uint i) { return SlotOf(i, gl_LocalInvocationID.x); }

uint Swizzled(uint i) { return i ^ ((i / kPer) & (kPer - 1u)); }

// cos and sin of 2π·m/16.
const float kCos16[16] = float[16](1.0, 0.92387953251128674, 0.70710678118654752,
                                   0.38268343236508977, 0.0, -0.38268343236508977,
                                   -0.70710678118654752, -0.92387953251128674, -1.0,
                                   -0.92387953251128674, -0.70710678118654752,
                                   -0.38268343236508977, 0.0, 0.38268343236508977,
                                   0.70710678118654752, 0.92387953251128674);
const float kSin16[16] = float[16](0.0, 0.38268343236508977, 0.70710678118654752,
                                   0.92387953251128674, 1.0, 0.92387953251128674,
                                   0.70710678118654752, 0.38268343236508977, 0.0,
                                   -0.38268343236508977, -0.70710678118654752,
                                   -0.92387953251128674, -1.0, -0.92387953251128674,
                                   -0.70710678118654752, -0.38268343236508977);

// Both complex numbers of v (xy and zw) times w.
vec4 Mul(vec4 v, vec2 w) { return v * w.x + vec4(-v.y, v.x, -v.w, v.z) * w.y; }

// Times −i·d (d = 1: the forward transform's e^(−2πi/4); −1: the inverse's).
vec4 MulMinusI(vec4 v, float d) { return d * vec4(v.y, -v.x, v.w, -v.z); }

vec2 Mul(vec2 v, vec2 w) { return v * w.x + vec2(-v.y, v.x) * w.y; }

vec2 MulMinusI(vec2 v, float d) { return d * vec2(v.y, -v.x); }

// e^(−2πi·d·m/16), m a constant once unrolled.
vec2 Root16(uint m, float d) { return vec2(kCos16[m & 15u], -d * kSin16[m & 15u]); }

// In place, natural order: the 2-, 4-, 8- and 16-point transforms of the
// elements a[o + s·k] (o and s constants once unrolled).
void Dft2(uint o, uint s) {
  const Elem e0 = a[o], e1 = a[o + s];
  a[o] = e0 + e1;
  a[o + s] = e0 - e1;
}

void Dft4(uint o, uint s, float d) {
  const Elem t0 = a[o] + a[o + 2u * s], t1 = a[o] - a[o + 2u * s];
  const Elem t2 = a[o + s] + a[o + 3u * s], t3 = MulMinusI(a[o + s] - a[o + 3u * s], d);
  a[o] = t0 + t2;
  a[o + s] = t1 + t3;
  a[o + 2u * s] = t0 - t2;
  a[o + 3u * s] = t1 - t3;
}

// 8 = 2 × 4: index k = k1 + 2·k2; the 4-point transforms over k2, twiddles
// e^(−2πi·d·k1·q2/8), the 2-point ones over k1; output q2 + 4·q1 ends at
// position 2·q2 + q1, hence the reordering.
void Dft8(uint o, uint s, float d) {
  [[unroll]] for (uint k1 = 0u; k1 < 2u; ++k1) Dft4(o + k1 * s, 2u * s, d);
  [[unroll]] for (uint q2 = 1u; q2 < 4u; ++q2) {
    a[o + (1u + 2u * q2) * s] = Mul(a[o + (1u + 2u * q2) * s], Root16(2u * q2, d));
  }
  [[unroll]] for (uint q2 = 0u; q2 < 4u; ++q2) Dft2(o + 2u * q2 * s, s);
  Elem t[8];
  [[unroll]] for (uint q = 0u; q < 8u; ++q) t[q] = a[o + (2u * (q & 3u) + (q >> 2)) * s];
  [[unroll]] for (uint q = 0u; q < 8u; ++q) a[o + q * s] = t[q];
}

// 16 = 4 × 4, the same way.
void Dft16(uint o, uint s, float d) {
  [[unroll]] for (uint k1 = 0u; k1 < 4u; ++k1) Dft4(o + k1 * s, 4u * s, d);
  [[unroll]] for (uint k1 = 1u; k1 < 4u; ++k1) {
    [[unroll]] for (uint q2 = 1u; q2 < 4u; ++q2) {
      a[o + (k1 + 4u * q2) * s] = Mul(a[o + (k1 + 4u * q2) * s], Root16(k1 * q2, d));
    }
  }
  [[unroll]] for (uint q2 = 0u; q2 < 4u; ++q2) Dft4(o + 4u * q2 * s, s, d);
  Elem t[16];
  [[unroll]] for (uint q = 0u; q < 16u; ++q) t[q] = a[o + (4u * (q & 3u) + (q >> 2)) * s];
  [[unroll]] for (uint q = 0u; q < 16u; ++q) a[o + q * s] = t[q];
}

// Before a pass's transforms of radix R: input k of the group led by
// virtual invocation v times e^(−2πi·d·(v mod ns)·k / (ns·R)).
void Twiddle(uint first, uint stride, uint radix, uint v, uint ns, float d) {
  if (ns == 1u) return;
  const uint step = (v % ns) * (kSize / (ns * radix));
  [[unroll]] for (uint k = 1u; k < kPer; ++k) {
    if (k < radix) {
      const vec2 w = twiddle[step * k];
      a[first + k * stride] = Mul(a[first + k * stride], vec2(w.x, d * w.y));
    }
  }
}

// Where output q of the group led by v goes: Stockham's autosort order.
void Scatter(uint first, uint stride, uint radix, uint v, uint ns) {
  const uint base = (v / ns) * ns * radix + v % ns;
  [[unroll]] for (uint q = 0u; q < kPer; ++q) {
    if (q < radix) exchange[Slot(Swizzled(base + q * ns))] = a[first + q * stride];
  }
}

// Every pass reads the invocation's own set back (after the writes, and
// before anyone writes again).
void Gather() {
  barrier();
  const uint j = gl_LocalInvocationID.y;
  [[unroll]] for (uint m = 0u; m < kPer; ++m) a[m] = exchange[Slot(Swizzled(j + kThreads * m))];
  barrier();
}

// One pass of radix kPer (one group per invocation) over stride ns; `last`
// keeps the results in registers (they are the invocation's set then).
void PassMain(uint ns, float d, bool last) {
  const uint v = gl_LocalInvocationID.y;
  Twiddle(0u, 1u, kPer, v, ns, d);
#if PER == 16
  Dft16(0u, 1u, d);
#else
  Dft8(0u, 1u, d);
#endif
  if (!last) {
    Scatter(0u, 1u, kPer, v, ns);
    Gather();
  }
}

// The last pass where log2 N is not a multiple of log2 kPer: kPer / radix
// groups per invocation, group u led by virtual invocation j + kThreads·u,
// its inputs a[u + (kPer / radix)·k].
void PassTail(uint radix, uint ns, float d) {
  const uint j = gl_LocalInvocationID.y;
  if (radix == 8u) {
    [[unroll]] for (uint u = 0u; u < kPer / 8u; ++u) {
      Twiddle(u, kPer / 8u, 8u, j + kThreads * u, ns, d);
      Dft8(u, kPer / 8u, d);
    }
  } else if (radix == 4u) {
    [[unroll]] for (uint u = 0u; u < kPer / 4u; ++u) {
      Twiddle(u, kPer / 4u, 4u, j + kThreads * u, ns, d);
      Dft4(u, kPer / 4u, d);
    }
  } else if (radix == 2u) {
    [[unroll]] for (uint u = 0u; u < kPer / 2u; ++u) {
      Twiddle(u, kPer / 2u, 2u, j + kThreads * u, ns, d);
      Dft2(u, kPer / 2u);
    }
  }
}

// The whole transform, forwards (d = 1) or backwards (d = −1, unscaled).
void Transform(float d) {
  const uint bits = findLSB(kSize), per_bits = findLSB(kPer);
  const uint passes = bits / per_bits;
  const uint tail = 1u << (bits % per_bits);  // 1: none
  uint ns = 1u;
  for (uint p = 0u; p < passes; ++p) {
    PassMain(ns, d, tail == 1u && p + 1u == passes);
    ns *= kPer;
  }
  if (tail != 1u) PassTail(tail, ns, d);
}

// Element g of the extended segment: line pixel first + g up to R past its
// outputs, first + g − N for the left context at the end, zeros between;
// the border where that leaves the line.
Elem Extended(uint base, uint group, int g) {
  const int r = int(pc.radius);
  int from = -1;
  if (count == 0) {
    // a workgroup's lines past the last one: zeros, and nothing stored
  } else if (g < count + r) {
    from = BorderIndex(first + g, int(pc.n), kBorder);
  } else if (g >= int(kSize) - r) {
    from = BorderIndex(first + g - int(kSize), int(pc.n), kBorder);
  }
  if (from < 0) return Elem(0.0);
  return HALF_OF(LOAD_PIXEL(src, base + uint(from) * pc.pixel_stride), group);
}

// The guard. A transform's rounding errors are relative to the whole segment
// (measured up to ~5e-7 of its largest magnitude M), a direct sum's to the
// window it reads; so an output whose window holds only values far below M
// (a dark region on a line with a bright one, in HDR) would lose its
// precision. Each output keeps the transform's value where the largest
// magnitude its window reads is at least M·kGuard, which keeps its error
// near 256 · 5e-7 ≈ 1e-4 of that magnitude at most (the guard's test in
// blur_variants_tests measured 5e-6 against a bound of 1e-3); where its
// window is all zeros it is 0; elsewhere, and on lines holding inf or NaN
// (which a transform spreads over the whole segment), it is summed directly.
// Magnitudes by blocks of 16 elements (and of 256) of the extended line:
// the blocks wholly inside a window bound its largest magnitude from below,
// those it touches from above. They live in `exchange` (no other shared
// memory: 2048 vec4 fill lavapipe's 32 KB, and more would cost the H200 a
// workgroup a multiprocessor): each element's magnitude in .x (at its
// swizzled index, a permutation within its block), block b's
// largest in .y of element b, big block c's largest in .y of element
// N/16 + c and its smallest block's in .y of element N/16 + N/256 + c.
const float kGuard = 1.0 / 256.0;
const uint kBlock = 16u;
const uint kBlocks = kSize / kBlock, kBigBlocks = kSize / (kBlock * kBlock);

// NaN counts as inf (max() may drop a NaN operand, hence the test first).
float Magnitude(Elem v) {
  if (any(isnan(v))) return uintBitsToFloat(0x7f800000u);
#ifdef PAIRS
  return max(abs(v.x), abs(v.y));
#else
  return max(max(abs(v.x), abs(v.y)), max(abs(v.z), abs(v.w)));
#endif
}

// The largest of blocks b0..b1 (inclusive; none: 0).
float BlocksMax(int b0, int b1) {
  float m = 0.0;
  int b = b0;
  while (b <= b1) {
    if ((b & int(kBlock - 1u)) == 0 && b + int(kBlock) - 1 <= b1) {
      m = max(m, exchange[Slot(kBlocks + uint(b) / kBlock)].y);
      b += int(kBlock);
    } else {
      m = max(m, exchange[Slot(uint(b))].y);
      ++b;
    }
  }
  return m;
}

// Fills the blocks' magnitudes, each element's in .x first (the caller's).
// Between barriers.
void BlockMaxima() {
  const uint j = gl_LocalInvocationID.y;
  // N / 16 blocks, at most one an invocation (kPer >= 8 elements each).
  float block = 0.0;
  if (j < kBlocks) {
    // Swizzled (as the magnitudes were stored): neighbouring invocations'
    // blocks, 256 bytes apart, would otherwise read one bank.
    for (uint k = 0u; k < kBlock; ++k) block = max(block, exchange[Slot(Swizzled(j * kBlock + k))].x);
  }
  barrier();  // every block read its elements' .x
  if (j < kBlocks) exchange[Slot(j)].y = block;
  barrier();
  if (j < kBigBlocks) {
    // The smallest over the blocks some window reads: not those wholly in
    // the zeros between the right border and the left one.
    const uint used_end = uint(count) + pc.radius, used_start = kSize - pc.radius;
    float most = 0.0, least = uintBitsToFloat(0x7f800000u);
    for (uint k = 0u; k < kBlock; ++k) {
      const uint first = (j * kBlock + k) * kBlock;
      most = max(most, exchange[Slot(j * kBlock + k)].y);
      if (first < used_end || first + kBlock > used_start) {
        least = min(least, exchange[Slot(j * kBlock + k)].y);
      }
    }
    exchange[Slot(kBlocks + j)].y = most;
    exchange[Slot(kBlocks + kBigBlocks + j)].y = least;
  }
  barrier();
}

// The blocks wholly within the extended line's [lo, hi]: x the first, y the
// last (none where y < x).
ivec2 InnerBlocks(int lo, int hi) {
  return ivec2((lo + int(kBlock) - 1) / int(kBlock), (hi + 1) / int(kBlock) - 1);
}

// Bounds on the largest magnitude in the extended line's [lo, hi] (within
// [0, N)): x below, y above.
vec2 RangeBounds(int lo, int hi) {
  const ivec2 inner = InnerBlocks(lo, hi);
  return vec2(BlocksMax(inner.x, inner.y), BlocksMax(lo / int(kBlock), hi / int(kBlock)));
}

// The window of output g, [g − R, g + R], wraps to the left border at the
// end of the extended line.
vec2 WindowBounds(int g) {
  const int r = int(pc.radius);
  if (g - r >= 0) return RangeBounds(g - r, g + r);
  const vec2 left = RangeBounds(g - r + int(kSize), int(kSize) - 1);
  const vec2 right = RangeBounds(0, g + r);
  return max(left, right);
}

// The guard's second chance, before the transform takes `exchange`, for a
// workgroup the common test (every block bright) turned down: does every
// output's window hold a whole block no smaller than the guard asks? That
// is the test the slow path below makes output by output (WindowBounds'
// lower bound), here from the block maxima still in `exchange`, a few reads
// an output. It keeps lines whose dark blocks no window reads alone — a
// border that clamps to one dark pixel R times (a transparent corner in
// straight alpha: colour and alpha 0) — off the slow path, whose loops over
// blocks after a second read of the line cost one workgroup ~4 µs, and the
// whole dispatch that much where it runs last (H100, 1080p r = 64: rows
// 50.5 µs on images with such a border late in the image, 46.3 without;
// docs/PERFORMANCE.md, twenty-seventh session). Each block's count of
// bright blocks before it goes in .x of element b (the magnitudes there
// are spent once BlockMaxima has run), element N − 1's .x of the
// workgroup's first line says whether every line passed. Workgroup-uniform
// (barriers): the caller's condition is.
uint BrightBefore(int b) { return floatBitsToUint(exchange[Slot(uint(b))].x); }

// Whether the extended line's [lo, hi] (within [0, N)) holds a whole bright block.
bool BrightWithin(int lo, int hi) {
  const ivec2 inner = InnerBlocks(lo, hi);
  return inner.y >= inner.x && BrightBefore(inner.y + 1) > BrightBefore(inner.x);
}

// Whether output g's window, wrapping as in WindowBounds, holds a whole
// bright block.
bool WindowCovered(int g) {
  const int r = int(pc.radius);
  if (g - r >= 0) return BrightWithin(g - r, g + r);
  return BrightWithin(g - r + int(kSize), int(kSize) - 1) || BrightWithin(0, g + r);
}

bool WindowsCovered(float line_max, bool finite) {
  const uint j = gl_LocalInvocationID.y;
  const float bright = line_max * kGuard;
  const uint flag = SlotOf(kSize - 1u, 0u);
  for (uint b = j; b <= kBlocks; b += kThreads) {
    uint before = 0u;
    for (uint c = 0u; c < b; ++c) before += exchange[Slot(c)].y >= bright ? 1u : 0u;
    exchange[Slot(b)].x = uintBitsToFloat(before);
  }
  if (gl_LocalInvocationIndex == 0u) exchange[flag].x = 1.0;
  barrier();
  bool covered = finite;
  [[unroll]] for (uint m = 0u; m < kPer; ++m) {
    const int g = int(j + kThreads * m);
    if (g < count) covered = covered && WindowCovered(g);
  }
  if (!covered) exchange[flag].x = 0.0;
  barrier();
  return exchange[flag].x != 0.0;
}

// Where the segment's output g goes (the line's part in out_line).
uint out_line = 0u;
uint OutIndex(uint g) {
  const uint x = uint(first) + g;
  return out_line + (x / kOutStrip) * pc.out_pixel_stride + x % kOutStrip;
}

// Output g summed directly, in fp32.
Elem Direct(uint base, uint group, int g) {
  const int r = int(pc.radius);
  Elem sum = weight[0] * Extended(base, group, g);
  for (int t = 1; t <= r; ++t) {
    const int left = g - t < 0 ? g - t + int(kSize) : g - t;
    sum += weight[t] * (Extended(base, group, left) + Extended(base, group, g + t));
  }
  return sum;
}

void main() {
  const uint j = gl_LocalInvocationID.y;
  const uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  // A line's segments in neighbouring workgroups: the pixels they both read
  // meet in the cache.
  const uint lines = LINE_OF(group) / pc.segments, segment = LINE_OF(group) % pc.segments;
  // Whole workgroups only: no barrier is skipped by part of one.
  if (lines * kLines >= pc.lines) return;
  const uint line = lines * kLines + gl_LocalInvocationID.x;
  first = int(segment * pc.segment);
  count = line < pc.lines ? min(int(pc.segment), int(pc.n) - first) : 0;
  const uint base = (line / kInStrip) * pc.line_stride + line % kInStrip;
  out_line = line * pc.out_line_stride;
  // Every load issued before the first magnitude is stored: interleaved,
  // the compiler waited on each load in turn before its store to shared
  // memory (one memory latency an element instead of one for all kPer; on
  // the H100 at 1080p r = 64 with 8 an invocation, 127 µs for both axes
  // against 103-106 split, docs/PERFORMANCE.md).
  [[unroll]] for (uint m = 0u; m < kPer; ++m) a[m] = Extended(base, group, int(j + kThreads * m));
  [[unroll]] for (uint m = 0u; m < kPer; ++m) {
    exchange[Slot(Swizzled(j + kThreads * m))].x = Magnitude(a[m]);
  }
  barrier();
  BlockMaxima();
  // The line's largest magnitude into registers (every invocation reads
  // the same few values) before the transform takes `exchange`, and
  // whether the workgroup's lines are all bright: finite, and every window
  // holds a whole block (2R + 1 >= 2·16 − 1) no smaller than the guard asks,
  // so no output needs its own bounds (the common case). The guard's work
  // below has barriers: the whole workgroup skips it or none of it.
  float line_max = 0.0;
  const bool windows_hold_blocks = int(pc.radius) >= int(kBlock) - 1;
  bool all_bright = windows_hold_blocks;
  for (uint l = 0u; l < kLines; ++l) {
    float most = 0.0, darkest = uintBitsToFloat(0x7f800000u);
    for (uint c = 0u; c < kBigBlocks; ++c) {
      most = max(most, exchange[SlotOf(kBlocks + c, l)].y);
      darkest = min(darkest, exchange[SlotOf(kBlocks + kBigBlocks + c, l)].y);
    }
    all_bright = all_bright && !isinf(most) && darkest >= most * kGuard;
    if (l == gl_LocalInvocationID.x) line_max = most;
  }
  const bool finite = !isinf(line_max);
  if (!all_bright && windows_hold_blocks) all_bright = WindowsCovered(line_max, finite);
  barrier();

  Transform(1.0);
  [[unroll]] for (uint m = 0u; m < kPer; ++m) a[m] *= spectrum[j + kThreads * m];
  Transform(-1.0);
  // Every output as transformed first: the registers are free before the
  // guard's work (with them still live, its bounds and direct sums would
  // raise the whole kernel's register count, which the common path pays).
  [[unroll]] for (uint m = 0u; m < kPer; ++m) {
    const uint g = j + kThreads * m;
    if (g < uint(count)) {
      STORE_HALF(OutIndex(g), a[m], group);
    }
  }
  if (all_bright) return;
  // Then the outputs the guard takes back, overwritten by the same
  // invocation. The last pass left `exchange` free, and the line is read
  // again for its magnitudes.
  for (uint g = j; g < kSize; g += kThreads) {
    exchange[Slot(Swizzled(g))].x = Magnitude(Extended(base, group, int(g)));
  }
  barrier();
  BlockMaxima();
  for (uint g = j; g < uint(count); g += kThreads) {
    const vec2 bounds = WindowBounds(int(g));
    if (finite && bounds.y == 0.0) {
      STORE_HALF(OutIndex(g), Elem(0.0), group);
    } else if (!finite || bounds.x < line_max * kGuard) {
      STORE_HALF(OutIndex(g), Direct(base, group, int(g)), group);
    }
  }
}
