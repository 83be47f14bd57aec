#version 450
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
// The PNG scanlines of an RGBA8 image the export just wrote (graph::
// PngRowsLayout): per row, the filter the encoder's adaptive rule picks —
// the smallest sum of |filtered byte as int8| among Sub, Up, Average and
// Paeth, the first of them on a tie — then the row's RGB bytes filtered
// with it, and whether every pixel of the row is opaque. The same rule and
// order as the CPU encoder's ChooseRowFilter, so the bytes are the ones it
// would write judging every row. One workgroup per row: the choice needs
// the whole row's costs before anything is written.
layout(local_size_x = 256) in;

layout(std430, binding = 0) readonly buffer Pixels { uint pixels[]; };  // RGBA8, alpha on top
layout(std430, binding = 1) writeonly buffer Rows { uint8_t rows[]; };
layout(std430, binding = 2) writeonly buffer Opaque { uint opaque[]; };

layout(push_constant) uniform Push {
  uint width;
  uint height;
} pc;

const uint kSub = 1u, kUp = 2u, kAverage = 3u, kPaeth = 4u;

shared uvec4 costs[256];
shared uint alphas[256];

uint Paeth(uint a, uint b, uint c) {
  int p = int(a) + int(b) - int(c);
  int pa = abs(p - int(a)), pb = abs(p - int(b)), pc = abs(p - int(c));
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

// The four filtered values of one byte x with left a, up b, up-left c.
uvec4 Filtered(uint x, uint a, uint b, uint c) {
  return (uvec4(x) - uvec4(a, b, (a + b) >> 1, Paeth(a, b, c))) & 0xffu;
}

// |v as int8|: what the filter choice sums.
uvec4 Magnitude(uvec4 v) { return min(v, 256u - v); }

void main() {
  const uint lane = gl_LocalInvocationID.x;
  for (uint y = gl_WorkGroupID.x; y < pc.height; y += gl_NumWorkGroups.x) {
    const uint line = y * pc.width, above = (y - 1u) * pc.width;
    // Sums fit 32 bits for rows up to ~11 M pixels; a wider row's wrapped
    // sum only changes which filter is chosen, never the decoded pixels.
    uvec4 cost = uvec4(0);
    uint alpha = 0xffu;
    for (uint x = lane; x < pc.width; x += 256u) {
      const uint cur = pixels[line + x];
      const uint left = x > 0u ? pixels[line + x - 1u] : 0u;
      const uint up = y > 0u ? pixels[above + x] : 0u;
      const uint up_left = x > 0u && y > 0u ? pixels[above + x - 1u] : 0u;
      alpha &= cur >> 24;
      for (uint s = 0u; s < 24u; s += 8u) {
        cost += Magnitude(Filtered(bitfieldExtract(cur, int(s), 8), bitfieldExtract(left, int(s), 8),
                                   bitfieldExtract(up, int(s), 8),
                                   bitfieldExtract(up_left, int(s), 8)));
      }
    }
    costs[lane] = cost;
    alphas[lane] = alpha;
    barrier();
    for (uint half_size = 128u; half_size > 0u; half_size >>= 1) {
      if (lane < half_size) {
        costs[lane] += costs[lane + half_size];
        alphas[lane] &= alphas[lane + half_size];
      }
      barrier();
    }
    const uvec4 total = costs[0];
    uint chosen = kSub;
    uint best = total.x;
    if (total.y < best) { chosen = kUp; best = total.y; }
    if (total.z < best) { chosen = kAverage; best = total.z; }
    if (total.w < best) { chosen = kPaeth; }
    const uint start = y * (1u + 3u * pc.width);
    if (lane == 0u) {
      rows[start] = uint8_t(chosen);
      opaque[y] = alphas[0] == 0xffu ? 1u : 0u;
    }
    for (uint x = lane; x < pc.width; x += 256u) {
      const uint cur = pixels[line + x];
      const uint left = x > 0u ? pixels[line + x - 1u] : 0u;
      const uint up = y > 0u ? pixels[above + x] : 0u;
      const uint up_left = x > 0u && y > 0u ? pixels[above + x - 1u] : 0u;
      for (uint c = 0u; c < 3u; ++c) {
        const int s = int(8u * c);
        const uvec4 v = Filtered(bitfieldExtract(cur, s, 8), bitfieldExtract(left, s, 8),
                                 bitfieldExtract(up, s, 8), bitfieldExtract(up_left, s, 8));
        rows[start + 1u + 3u * x + c] = uint8_t(v[chosen - 1u]);
      }
    }
    barrier();  // costs[] and alphas[] are reused by the next row
  }
}
