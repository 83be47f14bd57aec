// Reading a source image with a border mode, by pixel or bilinearly, for
// the resampling passes. Expects a working-format buffer named `src`.
// Positions are in pixel-centre coordinates: pixel (i, j) is at (i, j).

vec4 Fetch(ivec2 p, ivec2 size, uint border) {
  int x = BorderIndex(p.x, size.x, border);
  int y = BorderIndex(p.y, size.y, border);
  if (x < 0 || y < 0) return vec4(0.0);
  return LOAD_PIXEL(src, uint(y) * uint(size.x) + uint(x));
}

vec4 Bilinear(vec2 pos, ivec2 size, uint border) {
  vec2 base = floor(pos);
  vec2 t = pos - base;
  ivec2 p = ivec2(base);
  vec4 top = mix(Fetch(p, size, border), Fetch(p + ivec2(1, 0), size, border), t.x);
  vec4 bottom = mix(Fetch(p + ivec2(0, 1), size, border), Fetch(p + ivec2(1, 1), size, border), t.x);
  return mix(top, bottom, t.y);
}
