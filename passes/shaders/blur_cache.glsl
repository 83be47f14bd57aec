// The workgroup cache of line_cache, decimated and symmetric: the whole line
// when it fits, else a chunk of it plus a halo of `halo` pixels each side
// (border applied while loading). Pixels are cached in the working format's
// own words (RGBA16F stays packed: lossless and half the memory).
// Include after blur_line.glsl.

// Capacity in pixels, chosen on the host from maxComputeSharedMemorySize.
layout(constant_id = 1) const int kCacheCapacity = 2048;
shared WORKING_PIXEL cache[kCacheCapacity];

int cache_first;  // line position of cache[0]
int cache_count;  // pixels held

vec4 CachedPixel(int j) {
#ifdef WORKING_F32
  return cache[j];
#else
  return vec4(unpackHalf2x16(cache[j].x), unpackHalf2x16(cache[j].y));
#endif
}

// Outputs per chunk: the whole line if it fits, else what the halo leaves
// (the host refuses 2·halo ≥ capacity for lines that do not fit).
int ChunkOutputs(int halo) {
  return int(pc.n) <= kCacheCapacity ? int(pc.n) : kCacheCapacity - 2 * halo;
}

// Every invocation calls this with the same arguments.
void LoadChunk(uint line, int start, int count, int halo) {
  bool whole = int(pc.n) <= kCacheCapacity;
  cache_first = whole ? 0 : start - halo;
  cache_count = whole ? int(pc.n) : count + 2 * halo;
  barrier();  // the previous chunk's readers are done
  for (int j = int(gl_LocalInvocationIndex); j < cache_count; j += int(gl_WorkGroupSize.x)) {
    int i = BorderIndex(cache_first + j, int(pc.n), pc.border);
    cache[j] = i < 0 ? WORKING_PIXEL(0) : src[InIndex(line, i)];
  }
  barrier();
}

// The tap at line position pos. A chunk always holds its taps; only the whole
// line (any radius) needs the border here.
vec4 CacheTap(int pos) {
  int j = pos - cache_first;
  if (j < 0 || j >= cache_count) {
    j = BorderIndex(pos, int(pc.n), pc.border);
    if (j < 0) return vec4(0.0);
  }
  return CachedPixel(j);
}
