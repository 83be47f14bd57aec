#!/usr/bin/env python3
"""How far a coarse-grid Gaussian would be from the exact (truncated) one.

An idea for large_radius at the memory's speed: compute the exact blur
only at every D-th pixel of each axis (a strided convolution, about
(2r + 1) / D taps a pixel), then interpolate the full image from that grid
(4-point Lagrange, or 6-point). Cost and memory traffic would not depend on
the radius, near one copy of the image. This script measures, in double
precision and without a GPU, what that does to accuracy, three ways:

- noise: the PSNR on uniform white noise in [0, 1] over both axes (the
  measure large_radius's plans state), averaged over the grid phases;
- steps: the PSNR of one axis on piecewise-constant lines (random levels
  in [0, 1], segments of mean length 5 and 50 pixels), closer to the
  edges of photographs;
- bound: the worst case over any input in [0, 1] (the L1 norm of the error
  kernel at the worst phase), both axes.

sigma = r / 2, as the service's default. The exact kernel is truncated at
r, where it still has 13.5% of its peak: that jump puts kinks into the
blurred image wherever an edge enters the window, and a grid coarse
enough to pay (D ~ r / 4 and up) cannot interpolate them. Noise, whose
blur is nearly flat, hides this; steps and the bound do not. Prints one
line per radius and grid step.

Usage: coarse_grid_error.py [radius ...]   (default 16 32 64 128)
"""
import math
import random
import sys


def gaussian(radius, sigma):
    g = [math.exp(-0.5 * k * k / (sigma * sigma)) for k in range(-radius, radius + 1)]
    total = sum(g)
    return [w / total for w in g]


def lagrange(nodes, f):
    weights = []
    for a in nodes:
        w = 1.0
        for b in nodes:
            if b != a:
                w *= (f - b) / (a - b)
        weights.append(w)
    return weights


def error_kernels(g, radius, step, nodes):
    """Per grid phase k: the approximation's kernel minus the exact one,
    over source offsets around the output pixel, as a dict offset -> weight."""
    for k in range(step):
        e = {}
        for w, b in zip(lagrange(nodes, k / step), nodes):
            centre = b * step - k  # grid node b relative to the output pixel
            for t in range(-radius, radius + 1):
                e[centre + t] = e.get(centre + t, 0.0) + w * g[t + radius]
        for t in range(-radius, radius + 1):
            e[t] = e.get(t, 0.0) - g[t + radius]
        yield k, e


def noise_psnr(g, radius, step, nodes):
    # Both axes, phases independent: E[(a_h (x) a_v - g (x) g)^2] over
    # white noise of variance 1/12 is (1/12)(E[aa]^2 - 2 E[ag]^2 + gg^2).
    gg = sum(w * w for w in g)
    aa = ag = 0.0
    for _, e in error_kernels(g, radius, step, nodes):
        a = dict(e)
        for t in range(-radius, radius + 1):
            a[t] += g[t + radius]
        aa += sum(v * v for v in a.values()) / step
        ag += sum(a[t] * g[t + radius] for t in range(-radius, radius + 1)) / step
    mse = max(aa * aa - 2 * ag * ag + gg * gg, 1e-30) / 12
    return -10 * math.log10(mse)


def bound_psnr(g, radius, step, nodes):
    worst = max(sum(abs(v) for v in e.values()) for _, e in error_kernels(g, radius, step, nodes))
    both = worst * (1 + worst) + worst  # (A_h - G_h) A_v + G_h (A_v - G_v)
    return -20 * math.log10(both)


def steps_psnr(g, radius, step, nodes, mean_length, seed):
    rng = random.Random(seed)
    x = []
    while len(x) < 6000:
        x += [rng.random()] * (int(rng.expovariate(1 / mean_length)) + 1)
    n = len(x)

    def blur_at(p):
        return sum(g[t + radius] * x[min(max(p - t, 0), n - 1)] for t in range(-radius, radius + 1))

    grid = {}
    total = count = 0
    for i in range(2 * radius, n - 2 * radius, 3):
        j0, k = divmod(i, step)
        approx = 0.0
        for w, b in zip(lagrange(nodes, k / step), nodes):
            if j0 + b not in grid:
                grid[j0 + b] = blur_at((j0 + b) * step)
            approx += w * grid[j0 + b]
        total += (approx - blur_at(i)) ** 2
        count += 1
    return -10 * math.log10(total / count)


def main():
    radii = [int(a) for a in sys.argv[1:]] or [16, 32, 64, 128]
    print("radius,step,interpolation,noise_psnr_db,steps5_psnr_db,steps50_psnr_db,bound_psnr_db")
    for radius in radii:
        g = gaussian(radius, radius / 2)
        for step in (2, 4, 8, 16, 32, 64):
            if step > radius:
                break
            for name, nodes in (("cubic", [-1, 0, 1, 2]), ("quintic", [-2, -1, 0, 1, 2, 3])):
                print(f"{radius},{step},{name},{noise_psnr(g, radius, step, nodes):.1f},"
                      f"{steps_psnr(g, radius, step, nodes, 5, 1):.1f},"
                      f"{steps_psnr(g, radius, step, nodes, 50, 2):.1f},"
                      f"{bound_psnr(g, radius, step, nodes):.1f}", flush=True)


if __name__ == "__main__":
    main()
