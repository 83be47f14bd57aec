#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
// gaussian_blur "fast" on the matrix units, streamed (RGBA16F, and RGBA32F
// through fp16 in bands: see WORKING_F32 below): the products of gaussian_blur_fast_tensor.comp,
//   Y_s = Σ_j T_j · X_{s+j},  j = 0 .. J−1,  J = 1 + ⌈2R/16⌉,
// T_j[a][b] = w(16j + b − R − a), X_k[b][4l + c] = channel c of pixel
// (first − R + 16k + b) of line l, but each subgroup walks its own 4 lines
// along a segment of pc.tiles output tiles and keeps only the J input blocks
// the current tile needs, in a ring in shared memory (one 16-row block per
// slot), instead of the whole panel of a workgroup. So:
// - the halo is read once per segment (pc.tiles tiles), not once per 8 tiles;
// - the weight blocks T_j stay in registers for the whole segment, loaded
//   once;
// - a subgroup waits for no other: its barriers are subgroup barriers;
// - loads run kAhead blocks ahead of the products through registers, so
//   memory latency hides behind the products of the tiles before.
// The weights are the fp16 roundings alone (the panel kernel adds a second
// fp16 term, lo, for fp32 accuracy): each is within 2^-11 of its value, so
// an axis is off by at most Σ|w − fp16(w)| (< 2.5e-4 of full scale for
// σ = R/2; the plan states the figure), about one rounding of a full-scale
// RGBA16F value (2^-12), which the kernel reads and writes anyway. The lo
// products' second chain cost more than it bought (H100, 1080p, r = 64,
// µs H + V: 77.6 with them, 67.1 without, 54.8 without and with the queue
// and segments below retuned).
// Each tile's result goes through a small per-subgroup scratch matrix so
// that edges are masked and lines scattered with ordinary stores.
// Built for TILES_PER_STEP = N of 1, 2 and 4: each step computes N
// neighbouring tiles (below), with N − 1 more ring blocks and N − 1 more
// scratch blocks than one tile needs. H100, 1080p, µs H + V, one / two tiles per step in one sweep:
// r = 16 34.6 / 33.8, r = 32 49.4 / 39.9, r = 48 50.7 / 44.3, r = 64
// 73.0 / 72.7, r = 96 109.6 / 90.6. (With hi and lo products two tiles
// per step had been slower: r = 64 122 against 81.)
// Tried on the H100 and not kept (docs/PERFORMANCE.md): each input
// block loaded once into J accumulators instead of J blocks per tile (J
// fp32 accumulators in registers: r = 64 87 against 55 µs); the weight
// blocks in shared memory instead of registers (r = 64 114 against 55).
#include "shader_interface.h"
#include "border.glsl"

layout(local_size_x_id = 0) in;                 // kWarps × 32
layout(constant_id = 1) const int kRadius = 0;
layout(constant_id = 2) const int kLinesAdjacent = 0;  // 1: line_stride 1 (a column pass)
layout(constant_id = 3) const int kWarps = 1;
// Blocks loaded ahead of the products: the plan's choice (more hide more
// latency, but take registers the weight blocks need beyond J = 6); even
// where two tiles are computed per step.
layout(constant_id = 4) const int kAhead = 4;
// 1: the dispatch's x counts line groups and y segments (neighbouring
// workgroups take neighbouring lines: the plan's choice for column
// passes), 0: x segments, y line groups.
layout(constant_id = 5) const int kLineGroupsFirst = 0;
// RGFX_BORDER_*, per pipeline (border.glsl says why).
layout(constant_id = 6) const int kBorder = RGFX_BORDER_CLAMP;
// Accumulator chains per tile: 1, or 2 (products of odd j in a second
// chain, added at the end), which halves the chain of dependent products a
// tile waits for at the cost of 8 registers a tile: the plan's choice
// (fast.cc, StreamShape's column_chains).
layout(constant_id = 7) const int kChains = 1;
// The temporary between a row pass and a column pass, where the plan tiles
// it (fast.cc, TileTheTemporary): 0 lines as the strides say; 1 pixel
// (x, y) at TempIndex, in tiles of 4 x 16 pixels, 512 bytes each in
// RGBA16F: the row pass stores there, the column pass loads from there, so
// a column pass's 16 rows of 4 lines are 512 contiguous bytes, not 16
// pieces of 32 bytes; 2 the same, and the row pass stores 4 lines x 8
// pixels an instruction (two whole 128-byte pieces) instead of 2 lines x
// 16 pixels. H100, µs H + V (docs/PERFORMANCE.md, "`fast`: the
// temporary in tiles"): 1080p r = 8 29.7 -> 29.2 (with 2), r = 16 31.3 ->
// 29.6 (with 1), r = 24 36.1 -> 32.3 (2); 4K r = 24 147.5 -> 127.3.
layout(constant_id = 8) const int kTiledTemp = 0;
// The split build's outputs keep LanePixel's places (their carried sums
// were loaded there), so it stores a tiled temporary as the other builds
// do where they compute two or four tiles a step.
#ifdef SPLIT_TAPS
const bool kWideTempStores = false;
#else
const bool kWideTempStores = kTiledTemp == 2 && kLinesAdjacent == 0;
#endif
const int kTaps16 = 1 + (2 * kRadius + 15) / 16;  // J: input blocks per output tile
// A ring or scratch row: 4 pixels (one per line, 4 halves each) plus 2 of
// padding, so that the 8 rows a matrix load reads at once (48 bytes apart)
// fall on different banks.
const int kRowWords = 6;                          // uvec2 per row
const int kBlockWords = 16 * kRowWords;
// N tiles per step: J + N − 1 ring slots (blocks s .. s + J + N − 2), N
// scratch blocks. Built with TILES_PER_STEP = 1, 2 and 4.
const int kTilesPerStep = TILES_PER_STEP;
const int kSlots = kTaps16 + kTilesPerStep - 1;
// 1: the blocks a step needs wait in registers (xr in main), each loaded
// from shared memory once instead of once per step that reads it (J + N − 1
// matrix loads a step become N), and shared memory only stages the N blocks
// a step brings in; each step then moves the kept blocks down the array
// (register moves). The plan's choice (fast.cc, StreamShape's
// register_ring): it won at some J and lost at others. RGBA16F only: the
// RGBA32F build may store a step's blocks again (a wrong band guess) and
// keeps them in shared memory.
layout(constant_id = 9) const int kRegisterRingSpec = 0;
#ifdef WORKING_F32
const bool kRegisterRing = false;
#else
const bool kRegisterRing = kRegisterRingSpec == 1;
#endif
const int kRingSlots = kRegisterRing ? kTilesPerStep : kSlots;
// The register moves of that shift (xr[i] = xr[i + N] after every step)
// were 75 of the step loop's 552 instructions on the H100 (r = 64, J = 9,
// N = 4). Where the ring's period is short, block k stays in xr[k mod
// kSlots] instead and the step loop is unrolled over the period (kRound
// steps, after which every index repeats), so the shift is a renaming:
// kSlots / gcd(N, kSlots) steps. Measured (H100, 1080p RGBA16F, µs): the
// column passes gained with four tiles a step (r = 64, period 3: 21.0 ->
// 20.2; r = 48, period 5: 19.5 -> 18.7; 4K r = 64 78.1 -> 71.2) while
// the row passes lost (17.4 -> 17.9 at r = 64, 64.3 -> 67.3 at 4K; more
// registers), two tiles a step did not gain (r = 32, period 3), and a
// period of 7 lost badly (r = 80: 206 registers): so column passes with
// four tiles a step and a period of at most 5, where the queue's round of
// kAhead / N steps is 1.
const int kRingGcd = kSlots % kTilesPerStep == 0 ? kTilesPerStep : (kSlots % 2 == 0 ? 2 : 1);
const int kRingPeriod = kSlots / kRingGcd;
const bool kRingRenamed = kRegisterRing && kLinesAdjacent == 1 && kTilesPerStep == 4 &&
                          kRingPeriod <= 5 && kAhead == kTilesPerStep;
const int kRound = kRingRenamed ? kRingPeriod : kAhead / kTilesPerStep;
// Where block s + j of step u of a round waits (s = round start + N·u).
int Held(int u, int j) { return kRingRenamed ? (kTilesPerStep * u + j) % kSlots : j; }
#ifdef WORKING_F32
// RGBA32F (WORKING_F32): pixels are read and written in fp32 and enter the
// ring as fp16 scaled by 2^shift, shift = 11 − 18·band, where a block's band
// follows the exponent E of its largest magnitude: band b holds E in
// [−14 + 18b, 3 + 18b], so the block's largest lands in [2^-3, 2^15) —
// within fp16's range, and at least 2^11 times fp16's smallest normal, so
// every value keeps fp16's 11 bits relative to its block's largest (less
// only where itself below 2^-11 of it). Band 0 holds blocks whose largest is
// in [2^-14, 16): images in [0, 1] and most HDR. Where every block a step
// reads is in one band (or all zero), the step runs on the matrix units
// and its sums are scaled back by 2^-shift once (powers of two: exact);
// elsewhere (bands meet, or a block holds inf or NaN) its tiles are
// computed in fp32 from memory, as the line paths do (so inf and NaN
// spread exactly as there). Scaling inside the products instead (each
// block's product scaled as it is added) measured 143.6 µs against 93.7 at
// r = 64 (H100, 1080p). So an axis is off by at most Σ|w − fp16(w)| +
// 2^-11·Σ|w| of the largest magnitude in the blocks the output's window
// reads (whole blocks: up to 15 pixels beyond the window) across its
// 4-line group (fast.cc states it). The fp32 results go through a scratch
// of 16 rows of 4 pixels (8 uvec2) plus 2 of padding.
#define PIXEL uvec4
const int kScratchRowWords = 10;
const int kBandZero = 1000;   // a block of zeros: any band
const int kBandBad = -1000;   // inf or NaN: fp32
#else
#define PIXEL uvec2
#ifdef SPLIT_TAPS
// The sums leave in fp32 (they are added to the parts before them).
const int kScratchRowWords = 10;
#else
const int kScratchRowWords = kRowWords;
#endif
#endif
const int kScratchWords = 16 * kScratchRowWords;
const int kWarpWords = kRingSlots * kBlockWords + kTilesPerStep * kScratchWords;

layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;
  uint pixel_stride;
  uint tiles;  // 16-output tiles per subgroup segment (a push constant: any
               // segment length shares the pipeline)
#ifdef SPLIT_TAPS
  int shift;   // this part's taps are centred this far from the output
  uint mode;   // kPartialRead | kPartialToDestination
#endif
} pc;

layout(std430, binding = 0) readonly buffer SrcBlock { PIXEL src[]; };
layout(std430, binding = 1) writeonly buffer DstBlock { PIXEL dst[]; };
// T_j: [j][hi, lo][16 rows][16 columns], row-major; this kernel reads hi.
layout(std430, binding = 2) readonly buffer TapsBlock { float16_t taps[]; };

// The kernel's only shared array: the matrix loads and stores need 16-byte
// alignment, which the driver gives the first shared array but not
// necessarily others (a second array, `int band[kSlots]`, came first on
// the H100 and put the ring 8 bytes off wherever kSlots · 4 was not a
// multiple of 16: garbage at r = 64).
shared uvec2 ring[kWarps * kWarpWords];
#ifdef WORKING_F32
// w(0) .. w(R) in fp32, for the steps computed from memory.
layout(std430, binding = 3) readonly buffer WeightsBlock { float weights[]; };
#endif
#ifdef SPLIT_TAPS
// SPLIT_TAPS (RGBA16F, radii beyond what one pass holds: fast.cc's
// PlanSplitStream): the kernel's taps are cut into parts of at most a few
// hundred, one dispatch each; part p's taps, centred pc.shift from the
// output, are the weights of this dispatch (binding 2, kRadius its half
// width), and the parts' sums meet in fp32 in `partial` (the output's
// layout, plain lines): the first part writes it, each later one adds what
// is there, the last writes the sum to dst in the working format. So the
// result is the one-pass sum up to fp32 roundings, at the cost of reading
// and writing an fp32 image once per part after the first.
layout(std430, binding = 3) buffer PartialBlock { uvec4 partial[]; };
const uint kPartialRead = 1u;           // add the parts before (not the first part)
const uint kPartialToDestination = 2u;  // the last part: the sum to dst
#endif

#define F16MAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define F32MAT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

int warp_base, line0, first;

// This lane's pixel e (0 or 1) of a 16-row block, loaded and stored alike:
// each instruction of the subgroup covers whole 32-byte sectors (rows of 2
// lines in a row pass, 16 pixels each; 8 rows of the 4 adjacent lines in a
// column pass). (A first version gave each lane 2 neighbouring pixels, so
// each store instruction wrote every other 8 bytes: H100, vertical pass,
// r = 64 40.7 -> 36.6 us, r = 16 27.4 -> 23.6.)
void LanePixel(int e, out int b, out int l) {
  const int q = int(gl_SubgroupInvocationID);
  if (kLinesAdjacent == 1) {
    l = q & 3;
    b = (q >> 2) + 8 * e;
  } else {
    l = (q >> 4) + 2 * e;
    b = q & 15;
  }
}

// Pixel (x, y) of a tiled temporary (kTiledTemp): tiles of 4 x 16 pixels
// in rows of ⌈width / 4⌉ tiles, each tile's 16 rows of 4 pixels in order;
// the plan pads the temporary to whole tiles.
uint TempIndex(int x, int y) {
  const int width = kLinesAdjacent == 1 ? int(pc.lines) : int(pc.n);
  const int tiles_across = (width + 3) / 4;
  return uint(((y >> 4) * tiles_across + (x >> 2)) * 64 + ((y & 15) << 2) + (x & 3));
}
// Pixel i of line `line` in the source and the destination: a column
// pass's lines are x and its pixels y, a row pass's the other way round.
uint SrcIndex(int line, int i) {
  if (kTiledTemp != 0 && kLinesAdjacent == 1) return TempIndex(line, i);
  return uint(line) * pc.line_stride + uint(i) * pc.pixel_stride;
}
uint DstIndex(int line, int i) {
  if (kTiledTemp != 0 && kLinesAdjacent == 0) return TempIndex(i, line);
  return uint(line) * pc.line_stride + uint(i) * pc.pixel_stride;
}

PIXEL LoadPixel(int k, int b, int l) {
  const int line = line0 + l;
#ifdef SPLIT_TAPS
  const int i = BorderIndex(first + pc.shift - kRadius + 16 * k + b, int(pc.n), uint(kBorder));
#else
  const int i = BorderIndex(first - kRadius + 16 * k + b, int(pc.n), uint(kBorder));
#endif
  if (line >= int(pc.lines) || i < 0) return PIXEL(0);
  return src[SrcIndex(line, i)];
}

// The subgroup's lanes meet, and their shared-memory accesses are ordered
// across it; nothing else (subgroupBarrier() orders buffer memory too;
// on the H100 the two measured the same).
void SharedBarrier() {
  controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
}

int SlotWords(int k) { return warp_base + (k % kRingSlots) * kBlockWords; }

int b0, l0, b1, l1;  // this lane's two pixels of a block (LanePixel)

#ifdef WORKING_F32
// The bands of the blocks that entered the ring so far, in order, reduced
// to what decides whether the ring's window of blocks s .. s + kSlots − 1
// is in one band: the latest non-zero block's band and index, the index of
// the non-zero block before the latest change of band (a window that
// reaches back to it holds two bands), and the latest block with inf or
// NaN. Every lane computes the same values (each block's band comes from
// subgroup votes or a reduction), so branches on them are uniform; kept in registers
// instead of a band per ring slot in shared memory, which each step had to
// read back (kSlots loads on the kernel's critical path).
int current_band = kBandZero, latest_nonzero = -1, mixed_until = -1, latest_bad = -1;
void Track(int k, int b) {
  if (b == kBandBad) {
    latest_bad = k;
  } else if (b != kBandZero) {
    if (current_band != kBandZero && b != current_band) mixed_until = latest_nonzero;
    current_band = b;
    latest_nonzero = k;
  }
}
int Shift(int b) { return clamp(11 - 18 * b, -126, 126); }
float PowerOfTwo(int e) { return uintBitsToFloat(uint(127 + e) << 23); }  // e in [-126, 127]
// What a block of band b is multiplied by on its way into the ring (zeros,
// inf and NaN as they are).
float BandScale(int b) { return b == kBandBad || b == kBandZero ? 1.0 : PowerOfTwo(Shift(b)); }
// This lane's largest magnitude in a block, as bits: non-negative floats
// order as their bits, NaN above inf above finite.
uint LaneTop(vec4 x0, vec4 x1) {
  const vec4 m4 = max(abs(x0), abs(x1));
  return floatBitsToUint(max(max(m4.x, m4.y), max(m4.z, m4.w)));
}
#endif

#ifdef WORKING_F32
// -127: zeros, or fp32 denormals (below 1.2e-38), which count as zeros: a
// window of nothing else blurs to 0. 128: inf, NaN.
int BandOfExponent(int exponent) {
  return exponent == 128 ? kBandBad
         : exponent == -127 ? kBandZero
                            : (exponent + 14 + 18 * 8) / 18 - 8;  // floor
}
void StoreScaled(int k, vec4 x0, vec4 x1, float scale) {
  const f16vec4 h0 = f16vec4(x0 * scale), h1 = f16vec4(x1 * scale);
  ring[SlotWords(k) + b0 * kRowWords + l0] = uvec2(packFloat2x16(h0.xy), packFloat2x16(h0.zw));
  ring[SlotWords(k) + b1 * kRowWords + l1] = uvec2(packFloat2x16(h1.xy), packFloat2x16(h1.zw));
}
#endif

// Block k (this lane's pixels p0, p1) into its ring slot: RGBA16F as read,
// RGBA32F scaled into fp16 by its band (see kScratchRowWords), found by a
// subgroup reduction (the first blocks of a segment, and steps where the
// band changes: see StoreInGuessedBand).
void RingStore(int k, PIXEL p0, PIXEL p1) {
#ifdef WORKING_F32
  const vec4 x0 = uintBitsToFloat(p0), x1 = uintBitsToFloat(p1);
  const int b = BandOfExponent(int(subgroupMax(LaneTop(x0, x1)) >> 23) - 127);
  StoreScaled(k, x0, x1, BandScale(b));
  Track(k, b);
#else
  ring[SlotWords(k) + b0 * kRowWords + l0] = p0;
  ring[SlotWords(k) + b1 * kRowWords + l1] = p1;
#endif
}

#ifdef WORKING_F32
// Block k into its ring slot in band `guess` (scale 2^Shift(guess)), the
// band of the blocks before it, without waiting to know the block's own;
// returns this lane's largest magnitude (as bits) for GuessHeld.
uint StoreInGuessedBand(int k, PIXEL p0, PIXEL p1, float scale) {
  const vec4 x0 = uintBitsToFloat(p0), x1 = uintBitsToFloat(p1);
  StoreScaled(k, x0, x1, scale);
  return LaneTop(x0, x1);
}

// Whether band `guess` is the block's own (two votes: no lane above the
// band, some lane in it) or the block is all zeros.
bool GuessHeld(uint lane_top, int guess) {
  const int lane_exponent = int(lane_top >> 23) - 127;
  return subgroupAll(lane_exponent <= 3 + 18 * guess) &&
         (subgroupAll(lane_top == 0u) || subgroupAny(lane_exponent >= -14 + 18 * guess));
}
#endif

#ifdef WORKING_F32
// Output i of line `line` straight from memory in fp32, every tap (the
// line paths' arithmetic): the steps whose blocks are in different bands.
vec4 DirectOutput(int line, int i) {
  vec4 sum = vec4(0.0);
  if (line >= int(pc.lines)) return sum;
  // Rolled: a rare path, called for 2 pixels of each of the step's tiles
  // in an unrolled loop; unrolled here too (which the simple clamp mapping
  // invites) it would multiply the kernel's code by the taps.
  [[dont_unroll]] for (int d = -kRadius; d <= kRadius; ++d) {
    const int at = BorderIndex(i + d, int(pc.n), uint(kBorder));
    if (at >= 0) {
      sum += weights[abs(d)] * uintBitsToFloat(src[SrcIndex(line, at)]);
    }
  }
  return sum;
}
#endif

void main() {
  const int warp = int(gl_SubgroupID);
  warp_base = warp * kWarpWords;
  const int scratch = warp_base + kRingSlots * kBlockWords;
  const uvec2 group = kLineGroupsFirst == 1 ? gl_WorkGroupID.yx : gl_WorkGroupID.xy;
  line0 = (int(group.y) * kWarps + warp) * 4;
  first = int(group.x) * int(pc.tiles) * 16;
  // Blocks this segment reads: its tiles' and the halo's.
  const int blocks = int(pc.tiles) + kTaps16 - 1;
  LanePixel(0, b0, l0);
  LanePixel(1, b1, l1);

  // The first J − 1 blocks straight into the ring (all loads, then the
  // stores), the next kAhead into registers.
  F16MAT xr[kSlots];  // kRegisterRing: blocks s .. s + kSlots − 1 of step s
  {
    PIXEL p[2 * (kTaps16 - 1) + 1];
    [[unroll]] for (int k = 0; k < kTaps16 - 1; ++k) {
      p[2 * k] = LoadPixel(k, b0, l0);
      p[2 * k + 1] = LoadPixel(k, b1, l1);
    }
    if (!kRegisterRing) {
      [[unroll]] for (int k = 0; k < kTaps16 - 1; ++k) RingStore(k, p[2 * k], p[2 * k + 1]);
    } else {
      // N at a time through the staging slots into registers.
      [[unroll]] for (int k0 = 0; k0 < kTaps16 - 1; k0 += kTilesPerStep) {
        SharedBarrier();
        [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
          if (k0 + q < kTaps16 - 1) RingStore(k0 + q, p[2 * (k0 + q)], p[2 * (k0 + q) + 1]);
        }
        SharedBarrier();
        [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
          if (k0 + q < kTaps16 - 1) {
            coopMatLoadNV(xr[k0 + q], ring, uint(SlotWords(k0 + q)), uint(kRowWords), false);
          }
        }
      }
    }
  }
  PIXEL queue[2 * kAhead];
  [[unroll]] for (int u = 0; u < kAhead; ++u) {
    const int k = kTaps16 - 1 + u;
    queue[2 * u] = k < blocks ? LoadPixel(k, b0, l0) : PIXEL(0);
    queue[2 * u + 1] = k < blocks ? LoadPixel(k, b1, l1) : PIXEL(0);
  }

  F16MAT t[kTaps16];
  [[unroll]] for (int j = 0; j < kTaps16; ++j) {
    coopMatLoadNV(t[j], taps, uint(j * 512), 16u, false);
  }

  // Tiles s .. s + N − 1 share blocks s + N − 1 .. s + J − 1: each block is
  // loaded from the ring once for all of them (J + N − 1 matrix loads per N
  // tiles instead of NJ), and the N accumulators are independent chains.
  // Blocks s + J − 1 .. s + J + N − 2 enter the ring in the slots of blocks
  // s − N .. s − 1, which only the step before read; kAhead (a multiple of
  // N) blocks ahead, so a round of kAhead / N steps keeps every queue index
  // constant. Where the segment's tile count is not a multiple of N, the
  // last step's extra tiles are computed from zeros or stale queue words
  // and not stored.
  const int kSteps = kAhead / kTilesPerStep;
  for (int s0 = 0; s0 < int(pc.tiles); s0 += kTilesPerStep * kRound) {
    [[unroll]] for (int u = 0; u < kRound; ++u) {
      const int s = s0 + kTilesPerStep * u;  // tiles s .. s + N − 1
      if (s >= int(pc.tiles)) break;
      const int k = s + kTaps16 - 1;  // blocks k .. k + N − 1 enter the ring
      SharedBarrier();
#ifdef WORKING_F32
      // The step's blocks go into the ring in the band of the blocks before
      // them (a guess), the products run on them, and only then do votes
      // check the guess, while the products are in flight. Waiting for each
      // block's band (a subgroup reduction) before its stores cost 33 µs at
      // r = 64 (H100, 1080p, H + V: 136.4 against 102.7 with one band for
      // all); checking the guess with votes before the products still cost
      // 18 (120.8 against 109.8 with the votes after them). Where the guess was wrong (the band changed, or inf or
      // NaN arrived) the step's blocks are read again from memory (the
      // queue holds the next ones), stored each in its own band through
      // RingStore, and the products run again: a uniform branch, rare.
      const int guess = current_band == kBandZero ? 0 : current_band;
      const float guess_scale = BandScale(guess);
      uint lane_top[kTilesPerStep];
#endif
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        const int w = 2 * (kTilesPerStep * (u % kSteps) + q);
#ifdef WORKING_F32
        lane_top[q] = StoreInGuessedBand(k + q, queue[w], queue[w + 1], guess_scale);
#else
        RingStore(k + q, queue[w], queue[w + 1]);
#endif
        if (k + q + kAhead < blocks) {
          queue[w] = LoadPixel(k + q + kAhead, b0, l0);
          queue[w + 1] = LoadPixel(k + q + kAhead, b1, l1);
        }
      }
      SharedBarrier();

#ifdef SPLIT_TAPS
      // The parts before's sums for this step's outputs, loaded before the
      // products so that their latency hides behind them: read where they
      // are added, each waited for up to a microsecond with only a few
      // subgroups a multiprocessor to cover it (H200, 1080p, a part cost
      // 1.7-3x a pass of its width).
      vec4 carried[2 * kTilesPerStep];
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        [[unroll]] for (int e = 0; e < 2; ++e) {
          const int line = line0 + (e == 0 ? l0 : l1);
          const int i = first + 16 * (s + q) + (e == 0 ? b0 : b1);
          carried[2 * q + e] = vec4(0.0);
          // Tiles past the segment (a last step's extra ones) are not
          // stored: their sums are not loaded either.
          if ((pc.mode & kPartialRead) != 0u && s + q < int(pc.tiles) && line < int(pc.lines) &&
              i < int(pc.n)) {
            carried[2 * q + e] =
                uintBitsToFloat(partial[uint(line) * pc.line_stride + uint(i) * pc.pixel_stride]);
          }
        }
      }
#endif

      F32MAT acc[kTilesPerStep], odd[kTilesPerStep];  // odd: the second chain
      for (int attempt = 0; attempt < 2; ++attempt) {
        [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) acc[q] = F32MAT(0.0);
        if (kChains == 2) {
          [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) odd[q] = F32MAT(0.0);
        }
        if (kRegisterRing) {
          [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
            coopMatLoadNV(xr[Held(u, kTaps16 - 1 + q)], ring, uint(SlotWords(k + q)),
                          uint(kRowWords), false);
          }
        }
        [[unroll]] for (int j = 0; j < kTaps16 + kTilesPerStep - 1; ++j) {
          F16MAT x;
          if (kRegisterRing) {
            x = xr[Held(u, j)];
          } else {
            coopMatLoadNV(x, ring, uint(SlotWords(s + j)), uint(kRowWords), false);
          }
          [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
            if (j - q < 0 || j - q >= kTaps16) continue;
            if (kChains == 2 && (j - q) % 2 == 1) {
              odd[q] = coopMatMulAddNV(t[j - q], x, odd[q]);
            } else {
              acc[q] = coopMatMulAddNV(t[j - q], x, acc[q]);
            }
          }
        }
        if (kChains == 2) {
          [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) acc[q] = acc[q] + odd[q];
        }
#ifdef WORKING_F32
        if (attempt == 1) break;
        bool held = true;
        [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
          held = GuessHeld(lane_top[q], guess) && held;
        }
        if (held) {
          [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
            Track(k + q, subgroupAll(lane_top[q] == 0u) ? kBandZero : guess);
          }
          break;
        }
        SharedBarrier();  // every lane's matrix loads done before the slots change
        [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
          RingStore(k + q, LoadPixel(k + q, b0, l0), LoadPixel(k + q, b1, l1));
        }
        SharedBarrier();
#else
        break;
#endif
      }
      if (kRegisterRing && !kRingRenamed) {
        // The next step's blocks s + N .. : register moves.
        [[unroll]] for (int i = 0; i < kTaps16 - 1; ++i) xr[i] = xr[i + kTilesPerStep];
      }

#ifdef WORKING_F32
      float unscale;
      // The step reads blocks s .. s + kSlots − 1.
      const bool one_band = s > mixed_until && s > latest_bad;
      // The matrix operations run in every step, outside any branch on the
      // bands (cooperative-matrix operations must be reached by the whole
      // subgroup; one_band is uniform, but nothing here makes the compiler
      // prove it); a step across bands then overwrites their results below
      // (such steps are rare: where magnitudes jump by 2^18 or more).
#endif
#ifdef WORKING_F32
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        coopMatStoreNV(acc[q], ring, uint(scratch + q * kScratchWords), uint(kScratchRowWords),
                       false);
      }
      // The sums are scaled back as they leave the scratch.
      // (A window of zeros after blocks of another band: zeros scaled.)
      unscale = one_band && current_band != kBandZero ? PowerOfTwo(-Shift(current_band)) : 1.0;
      if (!one_band) {
        // The matrix store above wrote words of any lane's pixels: let it
        // finish before each lane overwrites its own (uniform: every lane
        // tracked the same bands).
        SharedBarrier();
        // This lane's outputs of the step's tiles, into the scratch where
        // the products would have gone.
        [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
          [[unroll]] for (int e = 0; e < 2; ++e) {
            const int a = e == 0 ? b0 : b1, l = e == 0 ? l0 : l1;
            const uvec4 v = floatBitsToUint(DirectOutput(line0 + l, first + 16 * (s + q) + a));
            const int at = scratch + q * kScratchWords + a * kScratchRowWords + 2 * l;
            ring[at] = v.xy;
            ring[at + 1] = v.zw;
          }
        }
      }
#elif defined(SPLIT_TAPS)
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        coopMatStoreNV(acc[q], ring, uint(scratch + q * kScratchWords), uint(kScratchRowWords),
                       false);
      }
#else
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        coopMatStoreNV(F16MAT(acc[q]), ring, uint(scratch + q * kScratchWords),
                       uint(kScratchRowWords), false);
      }
#endif
      SharedBarrier();

      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        if (s + q >= int(pc.tiles)) break;
        [[unroll]] for (int e = 0; e < 2; ++e) {
          int a = e == 0 ? b0 : b1, l = e == 0 ? l0 : l1;
          if (kWideTempStores) {
            // 4 lines x 8 pixels an instruction: two whole rows of tiles.
            const int lane = int(gl_SubgroupInvocationID);
            l = (lane >> 2) & 3;
            a = 4 * ((lane >> 4) + 2 * e) + (lane & 3);
          }
          const int line = line0 + l;
          const int i = first + 16 * (s + q) + a;
          if (line < int(pc.lines) && i < int(pc.n)) {
            const int at = scratch + q * kScratchWords + a * kScratchRowWords;
#ifdef WORKING_F32
            dst[DstIndex(line, i)] = floatBitsToUint(
                unscale * uintBitsToFloat(uvec4(ring[at + 2 * l], ring[at + 2 * l + 1])));
#elif defined(SPLIT_TAPS)
            const vec4 sum =
                uintBitsToFloat(uvec4(ring[at + 2 * l], ring[at + 2 * l + 1])) + carried[2 * q + e];
            const uint plain = uint(line) * pc.line_stride + uint(i) * pc.pixel_stride;
            if ((pc.mode & kPartialToDestination) != 0u) {
              dst[DstIndex(line, i)] = uvec2(packHalf2x16(sum.xy), packHalf2x16(sum.zw));
            } else {
              partial[plain] = floatBitsToUint(sum);
            }
#else
            dst[DstIndex(line, i)] = ring[at + l];
#endif
          }
        }
      }
    }
  }
}
