// What every line-per-workgroup blur variant shares: the push constants (must
// match LinePush in passes/blur_variants/line_variant.h), the source and
// destination buffers, and where a line's pixels live. A dispatch blurs
// `lines` lines of `n` pixels; pixel i of line l is read at
// l·in_line_stride + i·in_pixel_stride and written at the out_* equivalent,
// so one kernel reads rows, columns, or rows written transposed (the
// published trick that lets the same kernel run for both axes).
// Include after working_format.glsl and border.glsl.

layout(push_constant) uniform Push {
  uint n;                 // pixels per line
  uint in_line_stride;    // in pixels
  uint in_pixel_stride;
  uint out_line_stride;
  uint out_pixel_stride;
  int radius;             // taps reach radius pixels each side
  uint border;            // RGFX_BORDER_*
  float inv_two_sigma2;   // 1 / (2σ²); 0 when radius is 0
  float inv_total;        // 1 / Σ of the kernel's weights, summed in double on the host
  int tap_step;           // decimated: pixels between taps; 1 elsewhere
  int half_taps;          // decimated: taps each side of the centre; radius elsewhere
} pc;

WORKING_BUFFER(0, readonly, src);
WORKING_BUFFER(1, writeonly, dst);

uint InIndex(uint line, int i) { return line * pc.in_line_stride + uint(i) * pc.in_pixel_stride; }

void StoreOut(uint line, int i, vec4 value) {
  STORE_PIXEL(dst, line * pc.out_line_stride + uint(i) * pc.out_pixel_stride, value);
}

// The normalised weight of tap k, computed in the shader as the published
// variants do. k² ≤ 4096² = 2^24 is exact in float.
float Weight(int k) { return exp(-float(k * k) * pc.inv_two_sigma2) * pc.inv_total; }

// Line pixel i, through the border when i is outside [0, n).
vec4 LinePixel(uint line, int i) {
  int j = BorderIndex(i, int(pc.n), pc.border);
  return j < 0 ? vec4(0.0) : LOAD_PIXEL(src, InIndex(line, j));
}
