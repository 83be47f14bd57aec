#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "tiled_halo": each workgroup blurs a tile of
// RGFX_TILED_HALO_TILE pixels (or the device maximum) of a line; the tile plus a halo of radius
// pixels each side (border applied) is loaded into shared memory. Taps are
// paired: taps k and k+1 become one tap between them, weight w_k + w_{k+1},
// read by linear interpolation at t = w_{k+1} / (w_k + w_{k+1}). Interpolating
// in fp32 from shared memory makes the pairing exact (the sum-of-weights
// trick), up to float rounding; the host precomputes (t, weight) per pair in
// double (binding 2) and checks that tile + halo fits.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"
#include "blur_line.glsl"

layout(local_size_x_id = 0) in;  // the tile: RGFX_TILED_HALO_TILE or the device maximum
layout(constant_id = 1) const int kCacheCapacity = RGFX_TILED_HALO_TILE;  // ≥ tile + 2·radius
shared WORKING_PIXEL tile[kCacheCapacity];

// pairs[0] = (unused, w_0); pairs[p] = (t, w) for taps 2p-1 and 2p, p ≥ 1.
layout(std430, binding = 2) readonly buffer PairsBlock { vec2 pairs[]; };

vec4 Tile(int j) {
#ifdef WORKING_F32
  return tile[j];
#else
  return vec4(unpackHalf2x16(tile[j].x), unpackHalf2x16(tile[j].y));
#endif
}

void main() {
  uint line = gl_WorkGroupID.y;
  int tile_size = int(gl_WorkGroupSize.x);
  int start = int(gl_WorkGroupID.x) * tile_size;
  int first = start - pc.radius;  // line position of tile[0]
  int count = min(tile_size, int(pc.n) - start) + 2 * pc.radius;
  for (int j = int(gl_LocalInvocationIndex); j < count; j += tile_size) {
    int i = BorderIndex(first + j, int(pc.n), pc.border);
    tile[j] = i < 0 ? WORKING_PIXEL(0) : src[InIndex(line, i)];
  }
  barrier();
  int i = start + int(gl_LocalInvocationIndex);
  if (i >= int(pc.n)) return;
  int c = i - first;  // this output's centre in the tile
  vec4 sum = pairs[0].y * Tile(c);
  int num_pairs = (pc.radius + 1) / 2;
  for (int p = 1; p <= num_pairs; ++p) {
    vec2 tw = pairs[p];
    int k = 2 * p - 1;
    // Tap k + 1 may be radius + 1 (zero weight, t = 0) when the radius is odd:
    // mix() then reads one pixel past the halo's need, still inside the tile.
    vec4 right = mix(Tile(c + k), Tile(min(c + k + 1, count - 1)), tw.x);
    vec4 left = mix(Tile(c - k), Tile(max(c - k - 1, 0)), tw.x);
    sum += tw.y * (right + left);
  }
  StoreOut(line, i, sum);
}
