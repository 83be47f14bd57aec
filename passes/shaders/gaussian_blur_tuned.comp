#version 450
#extension GL_GOOGLE_include_directive : require
// gaussian_blur "tuned": the symmetric kernel with its workgroup size and
// shared memory chosen on the host from the device's limits and the line
// length (passes/blur_variants/tuned.cc): the cache is sized to the line,
// not to the device maximum, so more workgroups fit on a core, and RGBA16F
// lines that fit unpacked are cached as vec4 so taps need no unpacking.
#include "shader_interface.h"
#include "working_format.glsl"
#include "border.glsl"
#include "blur_line.glsl"

layout(local_size_x_id = 0) in;
// Exactly one cache is in use; the other is declared with one pixel.
layout(constant_id = 1) const int kWideCapacity = 1;    // vec4 pixels
layout(constant_id = 2) const int kPackedCapacity = 1;  // RGBA16F words, packed
const int kCapacity = kWideCapacity + kPackedCapacity - 1;
shared vec4 wide[kWideCapacity];
#ifndef WORKING_F32
shared uvec2 packed_cache[kPackedCapacity];
#endif

int cache_first;
int cache_count;

vec4 Cached(int j) {
#ifndef WORKING_F32
  if (kPackedCapacity > 1) {
    return vec4(unpackHalf2x16(packed_cache[j].x), unpackHalf2x16(packed_cache[j].y));
  }
#endif
  return wide[j];
}

void LoadChunk(uint line, int start, int count) {
  bool whole = int(pc.n) <= kCapacity;
  cache_first = whole ? 0 : start - pc.radius;
  cache_count = whole ? int(pc.n) : count + 2 * pc.radius;
  barrier();
  for (int j = int(gl_LocalInvocationIndex); j < cache_count; j += int(gl_WorkGroupSize.x)) {
    int i = BorderIndex(cache_first + j, int(pc.n), pc.border);
#ifndef WORKING_F32
    if (kPackedCapacity > 1) {
      packed_cache[j] = i < 0 ? uvec2(0) : src[InIndex(line, i)];
      continue;
    }
#endif
    wide[j] = i < 0 ? vec4(0.0) : LOAD_PIXEL(src, InIndex(line, i));
  }
  barrier();
}

vec4 Tap(int pos) {
  int j = pos - cache_first;
  if (j < 0 || j >= cache_count) {
    j = BorderIndex(pos, int(pc.n), pc.border);
    if (j < 0) return vec4(0.0);
  }
  return Cached(j);
}

void main() {
  uint line = gl_WorkGroupID.x;
  int chunk = int(pc.n) <= kCapacity ? int(pc.n) : kCapacity - 2 * pc.radius;
  for (int start = 0; start < int(pc.n); start += chunk) {
    int count = min(chunk, int(pc.n) - start);
    LoadChunk(line, start, count);
    for (int i = start + int(gl_LocalInvocationIndex); i < start + count;
         i += int(gl_WorkGroupSize.x)) {
      vec4 sum = pc.inv_total * Tap(i);
      for (int k = 1; k <= pc.radius; ++k) sum += Weight(k) * (Tap(i - k) + Tap(i + k));
      StoreOut(line, i, sum);
    }
  }
}
