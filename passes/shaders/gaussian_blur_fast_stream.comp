#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
// gaussian_blur "fast" on the matrix units, streamed (RGBA16F working format
// only): the products of gaussian_blur_fast_tensor.comp,
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
const int kWarpWords = (kTaps16 + 2 * kTilesPerStep - 1) * kBlockWords;

layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;
  uint pixel_stride;
  uint border;
  uint tiles;  // 16-output tiles per subgroup segment (a push constant: any
               // segment length shares the pipeline)
} pc;

layout(std430, binding = 0) readonly buffer SrcBlock { uvec2 src[]; };
layout(std430, binding = 1) writeonly buffer DstBlock { uvec2 dst[]; };
// T_j: [j][hi, lo][16 rows][16 columns], row-major; this kernel reads hi.
layout(std430, binding = 2) readonly buffer TapsBlock { float16_t taps[]; };

shared uvec2 ring[kWarps * kWarpWords];

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

uvec2 LoadPixel(int k, int b, int l) {
  const int line = line0 + l;
  const int i = BorderIndex(first - kRadius + 16 * k + b, int(pc.n), pc.border);
  if (line >= int(pc.lines) || i < 0) return uvec2(0);
  return src[uint(line) * pc.line_stride + uint(i) * pc.pixel_stride];
}

// The subgroup's lanes meet, and their shared-memory accesses are ordered
// across it; nothing else (subgroupBarrier() orders buffer memory too;
// on the H100 the two measured the same).
void SharedBarrier() {
  controlBarrier(gl_ScopeSubgroup, gl_ScopeSubgroup, gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
}

int SlotWords(int k) { return warp_base + (k % kSlots) * kBlockWords; }

void main() {
  const int warp = int(gl_SubgroupID);
  warp_base = warp * kWarpWords;
  const int scratch = warp_base + kSlots * kBlockWords;
  const uvec2 group = kLineGroupsFirst == 1 ? gl_WorkGroupID.yx : gl_WorkGroupID.xy;
  line0 = (int(group.y) * kWarps + warp) * 4;
  first = int(group.x) * int(pc.tiles) * 16;
  // Blocks this segment reads: its tiles' and the halo's.
  const int blocks = int(pc.tiles) + kTaps16 - 1;
  int b0, l0, b1, l1;
  LanePixel(0, b0, l0);
  LanePixel(1, b1, l1);

  // The first J − 1 blocks straight into the ring (all loads, then the
  // stores), the next kAhead into registers.
  {
    uvec2 p[2 * (kTaps16 - 1) + 1];
    [[unroll]] for (int k = 0; k < kTaps16 - 1; ++k) {
      p[2 * k] = LoadPixel(k, b0, l0);
      p[2 * k + 1] = LoadPixel(k, b1, l1);
    }
    [[unroll]] for (int k = 0; k < kTaps16 - 1; ++k) {
      ring[SlotWords(k) + b0 * kRowWords + l0] = p[2 * k];
      ring[SlotWords(k) + b1 * kRowWords + l1] = p[2 * k + 1];
    }
  }
  uvec2 queue[2 * kAhead];
  [[unroll]] for (int u = 0; u < kAhead; ++u) {
    const int k = kTaps16 - 1 + u;
    queue[2 * u] = k < blocks ? LoadPixel(k, b0, l0) : uvec2(0);
    queue[2 * u + 1] = k < blocks ? LoadPixel(k, b1, l1) : uvec2(0);
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
  for (int s0 = 0; s0 < int(pc.tiles); s0 += kTilesPerStep * kSteps) {
    [[unroll]] for (int u = 0; u < kSteps; ++u) {
      const int s = s0 + kTilesPerStep * u;  // tiles s .. s + N − 1
      if (s >= int(pc.tiles)) break;
      const int k = s + kTaps16 - 1;  // blocks k .. k + N − 1 enter the ring
      SharedBarrier();
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        const int w = 2 * (kTilesPerStep * u + q);
        ring[SlotWords(k + q) + b0 * kRowWords + l0] = queue[w];
        ring[SlotWords(k + q) + b1 * kRowWords + l1] = queue[w + 1];
        if (k + q + kAhead < blocks) {
          queue[w] = LoadPixel(k + q + kAhead, b0, l0);
          queue[w + 1] = LoadPixel(k + q + kAhead, b1, l1);
        }
      }
      SharedBarrier();

      F32MAT acc[kTilesPerStep];
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) acc[q] = F32MAT(0.0);
      [[unroll]] for (int j = 0; j < kTaps16 + kTilesPerStep - 1; ++j) {
        F16MAT x;
        coopMatLoadNV(x, ring, uint(SlotWords(s + j)), uint(kRowWords), false);
        [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
          if (j - q >= 0 && j - q < kTaps16) acc[q] = coopMatMulAddNV(t[j - q], x, acc[q]);
        }
      }
      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        coopMatStoreNV(F16MAT(acc[q]), ring, uint(scratch + q * kBlockWords), uint(kRowWords), false);
      }
      SharedBarrier();

      [[unroll]] for (int q = 0; q < kTilesPerStep; ++q) {
        if (s + q >= int(pc.tiles)) break;
        [[unroll]] for (int e = 0; e < 2; ++e) {
          const int a = e == 0 ? b0 : b1, l = e == 0 ? l0 : l1;
          const int line = line0 + l;
          const int i = first + 16 * (s + q) + a;
          if (line < int(pc.lines) && i < int(pc.n)) {
            dst[uint(line) * pc.line_stride + uint(i) * pc.pixel_stride] =
                ring[scratch + q * kBlockWords + a * kRowWords + l];
          }
        }
      }
    }
  }
}
