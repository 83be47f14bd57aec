#!/usr/bin/env python3
"""Gaussian blur peers on the GPU machine, timed on one 1920x1080 RGBA image
and checked against one double-precision reference (docs/PERFORMANCE.md,
"Blur kernels"). Prints CSV: peer, device, median_ms, p10_ms, p90_ms,
max_abs_err (in 8-bit steps, 1/255), psnr_db.

The blur: radius 64 (129 taps), sigma 32, truncated Gaussian normalised over
its taps, clamp border (edge pixel repeated), separable, on float32 RGBA in
[0, 1] (a photograph-like image: smooth shading, hard-edged shapes, fine
noise; deterministic). Reference: scipy.ndimage.correlate1d in float64 on
both axes, mode 'nearest'. torchvision pads by reflection (no edge repeat),
so every error is measured on the interior (64 px in from each side), where
the border rule cannot matter.

GPU peers are timed with CUDA events around each call (median after warm-up
calls); OpenCV on the CPU with perf_counter. rgfx is checked against the
same reference: --save_png writes the photo for `rgfx process`, and each
--rgfx LABEL=FILE[=US] reads an output it returned as raw RGBA32F
(`--output_encoding RGBA32F`) and prints its errors, beside the GPU µs of
the blur that rgfx-gpu-bench measured in the same call (scripts/gpu/peers
does all of it). Usage:
  python3 bench/peers.py [--runs 20] [--radius 64] [--width 1920 --height 1080]
                         [--save_png PHOTO.png] [--rgfx LABEL=OUT.f32[=US] ...]
"""
import argparse
import math
import statistics
import struct
import sys
import time
import zlib

import numpy as np


def photo(width, height, seed=1):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float64)
    img = np.zeros((height, width, 4))
    for c in range(3):
        img[..., c] = 0.35 + 0.2 * np.sin(0.004 * x * (c + 1) + c) * np.cos(0.006 * y)
    for _ in range(16):
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
        r = rng.uniform(0.03, 0.2) * width
        inside = (x - cx) ** 2 + (y - cy) ** 2 < r * r
        colour = rng.uniform(0, 1, 3)
        for c in range(3):
            img[..., c] = np.where(inside, 0.5 * img[..., c] + 0.5 * colour[c], img[..., c])
    img[..., :3] += rng.normal(0, 0.02, (height, width, 3))
    img[..., 3] = 1.0
    return np.round(np.clip(img, 0, 1) * 255) / 255  # an 8-bit photograph


def save_png(path, img):
    """The 8-bit RGBA photo as a PNG (filter None, zlib): what rgfx decodes."""
    u8 = np.round(img * 255).astype(np.uint8)
    h, w = u8.shape[:2]
    rows = np.concatenate([np.zeros((h, 1), np.uint8), u8.reshape(h, w * 4)], axis=1)

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


def weights(radius, sigma):
    k = np.arange(-radius, radius + 1, dtype=np.float64)
    w = np.exp(-0.5 * (k / sigma) ** 2)
    return w / w.sum()


def reference(img, radius, sigma):
    from scipy.ndimage import correlate1d
    w = weights(radius, sigma)
    out = correlate1d(img, w, axis=1, mode="nearest")
    return correlate1d(out, w, axis=0, mode="nearest")


def errors(got, want, radius):
    g = np.asarray(got, dtype=np.float64)[radius:-radius, radius:-radius]
    w = want[radius:-radius, radius:-radius]
    d = g - w
    mse = float(np.mean(d * d))
    psnr = float("inf") if mse == 0 else -10 * math.log10(mse)
    return float(np.max(np.abs(d))) * 255, psnr


def time_cuda(fn, runs, warmup=3):
    import torch
    for _ in range(warmup):
        out = fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        out = fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return out, times


def time_cpu(fn, runs, warmup=1):
    for _ in range(warmup):
        out = fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t) * 1000)
    return out, times


def row(name, device, times, err):
    times = sorted(times)
    q = lambda p: times[min(len(times) - 1, int(p * (len(times) - 1) + 0.5))]
    print(f"{name},{device},{statistics.median(times):.4f},{q(0.1):.4f},{q(0.9):.4f},"
          f"{err[0]:.4f},{err[1]:.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--width", type=int, default=1920)
    ap.add_argument("--height", type=int, default=1080)
    ap.add_argument("--radius", type=int, default=64)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--save_png", help="write the photo here as an 8-bit RGBA PNG and stop")
    ap.add_argument("--rgfx", action="append", default=[],
                    help="LABEL=FILE[=US]: an rgfx output (raw RGBA32F) to check; US its GPU time")
    args = ap.parse_args()
    r, sigma = args.radius, args.radius / 2.0
    img = photo(args.width, args.height)
    if args.save_png:
        save_png(args.save_png, img)
        return
    ref = reference(img, r, sigma)
    print("peer,device,median_ms,p10_ms,p90_ms,max_abs_err_8bit_steps,psnr_db")
    for spec in args.rgfx:
        label, path, *us = spec.split("=")
        got = np.fromfile(path, dtype=np.float32).reshape(args.height, args.width, 4)
        ms = float(us[0]) / 1000 if us and us[0] else float("nan")
        row(f"rgfx {label}", "vulkan", [ms], errors(got, ref, r))
    w32 = weights(r, sigma).astype(np.float32)

    try:
        import torch
        import torch.nn.functional as F
        dev = torch.device("cuda")
        name = torch.cuda.get_device_name(0)
        x = torch.from_numpy(img.astype(np.float32)).permute(2, 0, 1)[None].contiguous().to(dev)
        kh = torch.from_numpy(w32).to(dev).view(1, 1, 1, -1).repeat(4, 1, 1, 1)
        kv = torch.from_numpy(w32).to(dev).view(1, 1, -1, 1).repeat(4, 1, 1, 1)

        def torch_separable():
            h = F.conv2d(F.pad(x, (r, r, 0, 0), mode="replicate"), kh, groups=4)
            return F.conv2d(F.pad(h, (0, 0, r, r), mode="replicate"), kv, groups=4)

        with torch.no_grad():
            out, t = time_cuda(torch_separable, args.runs)
        row("pytorch conv2d separable depthwise (fp32)", name, t,
            errors(out[0].permute(1, 2, 0).cpu().numpy(), ref, r))
        try:
            from torchvision.transforms.functional import gaussian_blur
            with torch.no_grad():
                out, t = time_cuda(lambda: gaussian_blur(x, [2 * r + 1, 2 * r + 1], [sigma, sigma]),
                                   max(3, args.runs // 4), warmup=1)
            row("torchvision gaussian_blur (fp32)", name, t,
                errors(out[0].permute(1, 2, 0).cpu().numpy(), ref, r))
        except Exception as e:  # noqa: BLE001
            print(f"# torchvision: {e}", file=sys.stderr)
    except Exception as e:  # noqa: BLE001
        print(f"# torch: {e}", file=sys.stderr)

    try:
        import cupy as cp
        from cupyx.scipy.ndimage import gaussian_filter1d
        xc = cp.asarray(img.astype(np.float32))
        truncate = r / sigma  # radius = int(truncate * sigma + 0.5) = r

        def cupy_blur():
            h = gaussian_filter1d(xc, sigma, axis=1, mode="nearest", truncate=truncate)
            return gaussian_filter1d(h, sigma, axis=0, mode="nearest", truncate=truncate)

        out, t = time_cuda(cupy_blur, args.runs)
        row("cupy gaussian_filter1d x2 (fp32)", "cuda", t, errors(cp.asnumpy(out), ref, r))
    except Exception as e:  # noqa: BLE001
        print(f"# cupy: {e}", file=sys.stderr)

    try:
        import cv2
        u8 = np.round(img * 255).astype(np.uint8)
        f32 = img.astype(np.float32)
        out, t = time_cpu(lambda: cv2.GaussianBlur(u8, (2 * r + 1, 2 * r + 1), sigma,
                                                   borderType=cv2.BORDER_REPLICATE),
                          max(3, args.runs // 4))
        row(f"opencv GaussianBlur uint8 ({cv2.getNumThreads()} threads)", "cpu", t,
            errors(out / 255.0, ref, r))
        out, t = time_cpu(lambda: cv2.GaussianBlur(f32, (2 * r + 1, 2 * r + 1), sigma,
                                                   borderType=cv2.BORDER_REPLICATE),
                          max(3, args.runs // 4))
        row(f"opencv GaussianBlur fp32 ({cv2.getNumThreads()} threads)", "cpu", t,
            errors(out, ref, r))
    except Exception as e:  # noqa: BLE001
        print(f"# opencv: {e}", file=sys.stderr)


if __name__ == "__main__":
    main()
