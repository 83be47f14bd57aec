#!/usr/bin/env python3
"""PSNR of large_radius's box staircase against the exact Gaussian, on images.

The plan of gaussian_blur "large_radius" states a PSNR on uniform white
noise (passes/blur_variants/large_radius.cc, KernelNoisePsnr). This script
measures what the staircase alone (in double precision: no fp32 prefix
rounding) does to real images, for several box counts, with the
equal-level breakpoints and with the refined ones (coordinate descent on
the squared distance to the Gaussian, as ChooseBoxStack does). Both axes,
clamp border, sigma = radius / 2, values in [0, 1], peak 1.

Usage: box_stack_psnr.py IMAGE... [--radii 16,64,256,1024] [--boxes 4,5,6,8]
Needs numpy and Pillow. docs/PERFORMANCE.md has a run's output.
"""
import argparse
import math

import numpy as np
from PIL import Image


def gaussian(radius, sigma):
    g = np.exp(-np.arange(radius + 1) ** 2 / (2 * sigma * sigma))
    return g / (g[0] + 2 * g[1:].sum())


def equal_level_breaks(g, levels):
    radius = len(g) - 1
    if radius + 1 <= levels:
        return list(range(radius + 1))
    lo, hi, k, breaks = g[radius], g[0], 0, []
    for j in range(1, levels):
        threshold = hi - (hi - lo) * j / levels
        while k < radius and g[k + 1] >= threshold:
            k += 1
        if k < radius and (not breaks or breaks[-1] != k):
            breaks.append(k)
    return breaks + [radius]


def staircase(g, breaks):
    out, start = np.zeros_like(g), 0
    for b in breaks:
        m = np.where(np.arange(start, b + 1) == 0, 1.0, 2.0)
        out[start:b + 1] = (m * g[start:b + 1]).sum() / m.sum()
        start = b + 1
    return out


def distance(g, breaks):
    m = np.full(len(g), 2.0)
    m[0] = 1
    return (m * (g - staircase(g, breaks)) ** 2).sum()


def refined_breaks(g, breaks):
    breaks, best = list(breaks), distance(g, breaks)
    step = max(1, (len(g) - 1) // 8)
    while step >= 1:
        moved = True
        while moved:
            moved = False
            for i in range(len(breaks) - 1):
                for d in (-step, step):
                    trial = breaks[:]
                    trial[i] += d
                    if trial[i] < (trial[i - 1] + 1 if i else 0) or trial[i] >= trial[i + 1]:
                        continue
                    e = distance(g, trial)
                    if e < best * (1 - 1e-12):
                        best, breaks, moved = e, trial, True
        step //= 2
    return breaks


def noise_psnr(g, k):
    m = np.full(len(g), 2.0)
    m[0] = 1
    aa, ab, bb = (m * g * g).sum(), (m * g * k).sum(), (m * k * k).sum()
    return -10 * math.log10(max(aa * aa - 2 * ab * ab + bb * bb, 1e-300) / 12)


def blur_axis(img, half, axis):
    kernel = np.concatenate([half[:0:-1], half])
    radius = len(half) - 1
    pad = [(0, 0)] * img.ndim
    pad[axis] = (radius, radius)
    padded = np.pad(img, pad, mode="edge")
    size = 1 << math.ceil(math.log2(padded.shape[axis] + len(kernel)))
    spectrum = np.fft.rfft(padded, size, axis=axis)
    shape = [1] * img.ndim
    shape[axis] = -1
    out = np.fft.irfft(spectrum * np.fft.rfft(kernel, size).reshape(shape), size, axis=axis)
    return np.take(out, np.arange(img.shape[axis]) + 2 * radius, axis=axis)


def blur(img, half):
    return blur_axis(blur_axis(img, half, 0), half, 1)


def psnr(a, b):
    return -10 * math.log10(((a - b) ** 2).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("images", nargs="+")
    ap.add_argument("--radii", default="16,64,256,1024")
    ap.add_argument("--boxes", default="4,5,6,8")
    args = ap.parse_args()
    images = [np.asarray(Image.open(p).convert("RGB"), dtype=np.float64) / 255 for p in args.images]
    print("radius boxes breakpoints noise_db " + " ".join(f"image{i + 1}_db" for i in range(len(images))))
    for radius in map(int, args.radii.split(",")):
        g = gaussian(radius, radius / 2)
        exact = [blur(img, g) for img in images]
        for levels in map(int, args.boxes.split(",")):
            start = equal_level_breaks(g, levels)
            for name, breaks in (("equal-level", start), ("refined", refined_breaks(g, start))):
                k = staircase(g, breaks)
                photos = " ".join(f"{psnr(e, blur(img, k)):.1f}" for e, img in zip(exact, images))
                print(f"{radius} {len(breaks)} {name} {noise_psnr(g, k):.1f} {photos}", flush=True)


if __name__ == "__main__":
    main()
