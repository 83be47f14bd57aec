#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_basic : require
// gaussian_blur "fast" on the matrix units (RGBA16F working format only):
// a 1-D convolution is a product with a banded Toeplitz matrix. For 16
// consecutive outputs along the blur axis (rows of the product) and 16
// columns (4 lines × 4 channels):
//   Y(16×16) = Σ_j T_j(16×16) · X_j(16×16),
//   T_j[a][b] = w(16j + b − R − a), X_j[b][n] = pixel (first − R + 16j + b)
// of column n, for j = 0 .. J−1, J = 1 + ⌈2R/16⌉. T_j is the same for every
// tile, so the host computes it once (binding 2). The weights are split in
// two halves, T = T_hi + T_lo (fp16 each), and both products accumulate in
// fp32: the weights keep ~22 bits, so with an fp16 input (which RGBA16F
// already is) the result is exact up to fp32 rounding. The input is never
// rounded beyond the working format.
//
// A workgroup of kWarps subgroups takes kTiles·16 consecutive outputs of
// 4·kWarps lines; subgroup w owns lines 4w .. 4w+3. The lines' pixels from
// first − R to first + kTiles·16 + R, borders resolved, are staged in shared
// memory as a panel whose row k holds pixel k of every line (4 halves per
// line), the layout X_j is loaded from. Results go back through the same
// panel (after a barrier) so edges are masked and lines scattered with
// ordinary stores.
#include "shader_interface.h"
#include "border.glsl"

layout(local_size_x_id = 0) in;                // kWarps × 32
layout(constant_id = 1) const int kRadius = 0;
layout(constant_id = 2) const int kLinesAdjacent = 0;  // 1: line_stride 1 (a column pass)
layout(constant_id = 3) const int kWarps = 1;

layout(constant_id = 4) const int kTiles = 8;  // 16-output tiles per subgroup (accumulators)
// RGFX_BORDER_*, per pipeline (border.glsl says why).
layout(constant_id = 5) const int kBorder = RGFX_BORDER_CLAMP;
const int kBatch = 8;  // staging loads in flight per invocation
const int kTaps16 = 1 + (2 * kRadius + 15) / 16;  // J
const int kRows = 16 * (kTiles + kTaps16 - 1);     // panel rows
// Row stride in halves: 8 halves (16 bytes) of padding keep the matrix loads
// 16-byte aligned and spread the staging stores over the banks.
const int kStride = 16 * kWarps + 8;
// The results (kWarps·kTiles tiles of 256 halves) fit in it: kRows >= 16·kTiles.
const int kPanel = kRows * kStride;

layout(push_constant) uniform Push {
  uint n;
  uint lines;
  uint line_stride;
  uint pixel_stride;
} pc;

layout(std430, binding = 0) readonly buffer SrcBlock { uvec2 src[]; };
layout(std430, binding = 1) writeonly buffer DstBlock { uvec2 dst[]; };
// T_j: [j][hi, lo][16 rows][16 columns], row-major.
layout(std430, binding = 2) readonly buffer TapsBlock { float16_t taps[]; };

shared float16_t panel[kPanel];

#define F16MAT fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define F32MAT fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>

void main() {
  const int lines_per_group = 4 * kWarps;
  const int first = int(gl_WorkGroupID.x) * kTiles * 16;
  const int line0 = int(gl_WorkGroupID.y) * lines_per_group;
  const int threads = int(gl_WorkGroupSize.x);

  // Stage the panel. Consecutive invocations take consecutive addresses:
  // along the line when pixels are adjacent, across lines when lines are.
  // Each invocation issues kBatch loads before it stores any, so a
  // workgroup waits for memory once per batch, not once per pixel.
  const int total = kRows * lines_per_group;
  for (int q0 = 0; q0 < total; q0 += kBatch * threads) {
    uvec2 p[kBatch];
    int at[kBatch];
    [[unroll]] for (int u = 0; u < kBatch; ++u) {
      const int q = q0 + u * threads + int(gl_LocalInvocationIndex);
      int k, l;
      if (kLinesAdjacent == 1) {
        l = q % lines_per_group;
        k = q / lines_per_group;
      } else {
        k = q % kRows;
        l = q / kRows;
      }
      const int line = line0 + l;
      const int i = BorderIndex(first - kRadius + k, int(pc.n), uint(kBorder));
      p[u] = uvec2(0);
      if (q < total && line < int(pc.lines) && i >= 0) {
        p[u] = src[uint(line) * pc.line_stride + uint(i) * pc.pixel_stride];
      }
      at[u] = q < total ? k * kStride + l * 4 : -1;
    }
    [[unroll]] for (int u = 0; u < kBatch; ++u) {
      if (at[u] < 0) continue;
      const f16vec2 rg = unpackFloat2x16(p[u].x), ba = unpackFloat2x16(p[u].y);
      panel[at[u]] = rg.x;
      panel[at[u] + 1] = rg.y;
      panel[at[u] + 2] = ba.x;
      panel[at[u] + 3] = ba.y;
    }
  }
  barrier();

  const int warp = int(gl_SubgroupID);
  F32MAT acc[kTiles];
  [[unroll]] for (int m = 0; m < kTiles; ++m) acc[m] = F32MAT(0.0);
  // T_{j+1} is fetched while T_j multiplies, so the loop never waits on it.
  F16MAT t_hi, t_lo, next_hi, next_lo;
  coopMatLoadNV(next_hi, taps, 0u, 16u, false);
  coopMatLoadNV(next_lo, taps, 256u, 16u, false);
  for (int j = 0; j < kTaps16; ++j) {
    t_hi = next_hi;
    t_lo = next_lo;
    if (j + 1 < kTaps16) {
      coopMatLoadNV(next_hi, taps, uint((j + 1) * 512), 16u, false);
      coopMatLoadNV(next_lo, taps, uint((j + 1) * 512 + 256), 16u, false);
    }
    [[unroll]] for (int m = 0; m < kTiles; ++m) {
      F16MAT x;
      coopMatLoadNV(x, panel, uint((16 * (m + j)) * kStride + 16 * warp), uint(kStride), false);
      acc[m] = coopMatMulAddNV(t_hi, x, acc[m]);
      acc[m] = coopMatMulAddNV(t_lo, x, acc[m]);
    }
  }
  barrier();  // every subgroup is done reading the panel
  [[unroll]] for (int m = 0; m < kTiles; ++m) {
    coopMatStoreNV(F16MAT(acc[m]), panel, uint((warp * kTiles + m) * 256), 16u, false);
  }
  barrier();

  // Tile (w, m) row a, column 4l + c = output first + 16m + a of line 4w + l.
  for (int q = int(gl_LocalInvocationIndex); q < kTiles * 16 * lines_per_group; q += threads) {
    int pos, l;
    if (kLinesAdjacent == 1) {
      l = q % lines_per_group;
      pos = q / lines_per_group;
    } else {
      pos = q % (kTiles * 16);
      l = q / (kTiles * 16);
    }
    const int line = line0 + l;
    const int i = first + pos;
    if (line >= int(pc.lines) || i >= int(pc.n)) continue;
    const int at = ((l / 4) * kTiles + pos / 16) * 256 + (pos % 16) * 16 + (l % 4) * 4;
    dst[uint(line) * pc.line_stride + uint(i) * pc.pixel_stride] =
        uvec2(packFloat2x16(f16vec2(panel[at], panel[at + 1])),
              packFloat2x16(f16vec2(panel[at + 2], panel[at + 3])));
  }
}
