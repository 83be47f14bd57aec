// Where a tap outside [0, n) reads from (see passes/shader_interface.h).
// mirror repeats the edge pixel (-1 → 0, n → n-1; period 2n), like GL's
// MIRRORED_REPEAT. Returns -1 for "zero" (the tap contributes nothing).
// Valid for any offset, also radii much larger than the line.
// GLSL leaves % undefined for negative operands (NVIDIA and lavapipe differ),
// so negative offsets are folded with non-negative ones only.
int PositiveModulo(int i, int m) { return i >= 0 ? i % m : m - 1 - ((-i - 1) % m); }

// Where `mode` is a specialization constant (gaussian_blur_fast*.comp's
// kBorder), the driver folds this to the one mode's mapping; read from push
// constants, every inlined call carries all four, the modulo of mirror and
// wrap included (fast's streamed kernel at r = 64: 56 KB of code against
// 11.6 KB, and slower at most radii; docs/PERFORMANCE.md).
int BorderIndex(int i, int n, uint mode) {
  if (i >= 0 && i < n) return i;
  if (mode == RGFX_BORDER_CLAMP) return clamp(i, 0, n - 1);
  if (mode == RGFX_BORDER_WRAP) return PositiveModulo(i, n);
  if (mode == RGFX_BORDER_MIRROR) {
    int m = PositiveModulo(i, 2 * n);
    return m < n ? m : 2 * n - 1 - m;
  }
  return -1;
}
