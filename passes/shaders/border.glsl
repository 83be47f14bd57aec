// Where a tap outside [0, n) reads from (see passes/shader_interface.h).
// mirror repeats the edge pixel (-1 → 0, n → n-1; period 2n), like GL's
// MIRRORED_REPEAT. Returns -1 for "zero" (the tap contributes nothing).
// Valid for any offset, also radii much larger than the line.
int BorderIndex(int i, int n, uint mode) {
  if (i >= 0 && i < n) return i;
  if (mode == RGFX_BORDER_CLAMP) return clamp(i, 0, n - 1);
  if (mode == RGFX_BORDER_WRAP) return ((i % n) + n) % n;
  if (mode == RGFX_BORDER_MIRROR) {
    int period = 2 * n;
    int m = ((i % period) + period) % period;
    return m < n ? m : period - 1 - m;
  }
  return -1;
}
