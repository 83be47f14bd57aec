#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
// gaussian_blur "fast" for small radii, both axes in one dispatch: a
// workgroup stages a tile of the image plus a halo of R pixels on every side
// in shared memory (one coalesced read), blurs its rows into a second shared
// array (rounded to the working format, as the two-step paths round their
// temporary), blurs that array's columns and writes the tile once. Where two
// arrays would leave only a small tile (kInPlace), the rows wait in
// registers instead and then overwrite the staged pixels, which are no
// longer needed: one array, a larger tile. So
// the image is read and written once for both axes, where two steps read
// and write it twice; the halo's extra reads mostly hit the cache at small R.
// Each invocation takes runs of consecutive outputs along the axis it blurs
// (kRun along rows, kColRun along columns), so every staged pixel it reads
// feeds up to that many multiply-adds.
// Borders are resolved while staging; the rows of the halo are blurred like
// any other, which is what the two-step paths compute for them.
// Both shared arrays have an odd row stride (in pixels) and the row pass
// gives adjacent invocations adjacent rows: the pixels a half (RGBA16F) or
// quarter (RGBA32F) subgroup reads at once then sit in distinct banks. With
// even strides and runs of one row side by side, 8 invocations read the
// same bank and the row pass ran 8 shared-memory rounds per read.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const int kRadius = 0;
layout(constant_id = 2) const int kTileW = 32;  // multiples of kRun
layout(constant_id = 3) const int kTileH = 32;
layout(constant_id = 4) const int kInPlace = 0;  // 1: blurred rows over the staged pixels
// Outputs per column run (8, 4 or 2; divides kTileH): the planner makes
// the runs at least as many as the invocations.
layout(constant_id = 5) const int kColRun = 8;
// RGFX_BORDER_*, per pipeline (border.glsl says why).
layout(constant_id = 6) const int kBorder = RGFX_BORDER_CLAMP;

layout(push_constant) uniform Push {
  uint width;
  uint height;
} pc;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);
layout(std430, binding = 2) readonly buffer WeightsBlock { float weights[]; };  // [0..R]

const int kRun = 8;
const int kInW = kTileW + 2 * kRadius;
const int kInH = kTileH + 2 * kRadius;
const int kInStride = kInW + 1;     // odd: kInW is even
const int kRowStride = kTileW + 1;  // odd: kTileW is a multiple of kRun
const int kLoads = (kInW * kInH + 255) / 256;  // staged pixels per invocation
// Row runs per invocation, at most (the planner keeps kInH * kTileW / kRun
// <= 2 * 256).
const int kMaxRowItems = 2;
// The staged tile; in place, after the row pass, the blurred rows.
shared WORKING_PIXEL staged[kInH * kInStride];
// The blurred rows, kRowStride apart (one element when in place).
const int kRowsSize = 1 + (1 - kInPlace) * (kInH * kRowStride - 1);
shared WORKING_PIXEL rows_apart[kRowsSize];
shared float w[kRadius + 1];

void StoreRow(int at, WORKING_PIXEL p) {
  if (kInPlace != 0) {
    staged[at] = p;
  } else {
    rows_apart[at] = p;
  }
}

WORKING_PIXEL LoadRow(int at) { return kInPlace != 0 ? staged[at] : rows_apart[at]; }

#ifdef WORKING_F32
vec4 Unpacked(vec4 p) { return p; }
vec4 Packed(vec4 v) { return v; }
#else
vec4 Unpacked(uvec2 p) { return vec4(unpackHalf2x16(p.x), unpackHalf2x16(p.y)); }
uvec2 Packed(vec4 v) { return uvec2(packHalf2x16(v.xy), packHalf2x16(v.zw)); }
#endif

void main() {
  const int lane = int(gl_LocalInvocationIndex);
  const int x0 = int(gl_WorkGroupID.x) * kTileW, y0 = int(gl_WorkGroupID.y) * kTileH;
  const int width = int(pc.width), height = int(pc.height);
  for (int k = lane; k <= kRadius; k += 256) w[k] = weights[k];
  // Every load issued before any store: the workgroup waits for memory
  // once, not once per pixel it stages.
  WORKING_PIXEL loaded[kLoads];
  [[unroll]] for (int u = 0; u < kLoads; ++u) {
    const int q = lane + 256 * u;
    const int x = BorderIndex(x0 - kRadius + q % kInW, width, uint(kBorder));
    const int y = BorderIndex(y0 - kRadius + q / kInW, height, uint(kBorder));
    loaded[u] = Packed(vec4(0.0));
    if (q < kInW * kInH && x >= 0 && y >= 0) loaded[u] = src[uint(y) * pc.width + uint(x)];
  }
  [[unroll]] for (int u = 0; u < kLoads; ++u) {
    const int q = lane + 256 * u;
    if (q < kInW * kInH) staged[q / kInW * kInStride + q % kInW] = loaded[u];
  }
  barrier();

  // Rows: run (r, c0) is outputs c0 .. c0 + kRun − 1 of staged row r,
  // stored at r * kRowStride + c0; adjacent invocations take adjacent rows.
  // In place they wait in registers until every invocation has read what it
  // needs.
  const int runs_per_row = kTileW / kRun;
  WORKING_PIXEL blurred[kMaxRowItems * kRun];
  [[unroll]] for (int j = 0; j < kMaxRowItems; ++j) {
    const int item = lane + 256 * j;
    if (item >= kInH * runs_per_row) break;
    const int r = item % kInH, c0 = (item / kInH) * kRun;
    vec4 acc[kRun];
    [[unroll]] for (int u = 0; u < kRun; ++u) acc[u] = vec4(0.0);
    [[unroll]] for (int t = 0; t < kRun + 2 * kRadius; ++t) {
      const vec4 p = Unpacked(staged[r * kInStride + c0 + t]);
      [[unroll]] for (int u = 0; u < kRun; ++u) {
        const int tap = t - kRadius - u;
        if (tap >= -kRadius && tap <= kRadius) acc[u] += w[abs(tap)] * p;
      }
    }
    [[unroll]] for (int u = 0; u < kRun; ++u) {
      if (kInPlace != 0) {
        blurred[j * kRun + u] = Packed(acc[u]);
      } else {
        StoreRow(r * kRowStride + c0 + u, Packed(acc[u]));
      }
    }
  }
  if (kInPlace != 0) {
    barrier();
    [[unroll]] for (int j = 0; j < kMaxRowItems; ++j) {
      const int item = lane + 256 * j;
      if (item >= kInH * runs_per_row) break;
      const int r = item % kInH, c0 = (item / kInH) * kRun;
      [[unroll]] for (int u = 0; u < kRun; ++u) StoreRow(r * kRowStride + c0 + u, blurred[j * kRun + u]);
    }
  }
  barrier();

  // Columns: run (c, r0) is outputs r0 .. r0 + kColRun − 1 of column c;
  // adjacent invocations take adjacent columns, so the stores coalesce.
  const int runs_per_column = kTileH / kColRun;
  for (int item = lane; item < kTileW * runs_per_column; item += 256) {
    const int c = item % kTileW, r0 = (item / kTileW) * kColRun;
    vec4 acc[kColRun];
    [[unroll]] for (int u = 0; u < kColRun; ++u) acc[u] = vec4(0.0);
    [[unroll]] for (int t = 0; t < kColRun + 2 * kRadius; ++t) {
      const vec4 p = Unpacked(LoadRow((r0 + t) * kRowStride + c));
      [[unroll]] for (int u = 0; u < kColRun; ++u) {
        const int tap = t - kRadius - u;
        if (tap >= -kRadius && tap <= kRadius) acc[u] += w[abs(tap)] * p;
      }
    }
    const int x = x0 + c;
    [[unroll]] for (int u = 0; u < kColRun; ++u) {
      const int y = y0 + r0 + u;
      if (x < width && y < height) STORE_PIXEL(dst, uint(y) * pc.width + uint(x), acc[u]);
    }
  }
}
