#!/usr/bin/env python3
"""The service's PNGs decode identically with Pillow and OpenCV, and PNGs
written by Pillow and OpenCV decode in the service to the same pixels.

Usage: png_interop_test.py PATH/TO/png_interop_tool
Exit 77 (CTest: skipped) with the reason when Pillow, NumPy or OpenCV is
missing (scripts/setup installs them).
"""
import os
import subprocess
import sys
import tempfile

try:
    import cv2
    import numpy as np
    from PIL import Image
except ImportError as e:  # pragma: no cover
    print(f"SKIPPED: {e} (install python3-pil python3-numpy python3-opencv: scripts/setup)")
    sys.exit(77)

TOOL = sys.argv[1]
failures = []


def check(name, got, want):
    if got.shape != want.shape or not np.array_equal(got, want):
        diff = "shape" if got.shape != want.shape else int(np.count_nonzero(got != want))
        failures.append(f"{name}: differs ({diff})")
        print(f"FAIL {name}: got {got.shape} {got.dtype}, want {want.shape} {want.dtype}, {diff}")
    else:
        print(f"ok   {name}")


def read_raw(path, width, height, depth):
    dtype = np.dtype("<u2") if depth == 16 else np.uint8
    return np.fromfile(path, dtype=dtype).reshape(height, width, 4)


def opencv_rgba(path):
    img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
    if img.ndim == 2:
        img = img[:, :, None]
    channels = img.shape[2]
    full = np.iinfo(img.dtype).max
    if channels == 1:
        rgb, alpha = np.repeat(img, 3, axis=2), np.full(img.shape, full, img.dtype)
    elif channels == 3:
        rgb, alpha = img[:, :, ::-1], np.full(img.shape[:2] + (1,), full, img.dtype)
    else:
        rgb, alpha = img[:, :, 2::-1], img[:, :, 3:]
    return np.concatenate([rgb, alpha], axis=2)


def service_decode(path, tmp):
    out = os.path.join(tmp, "decoded.raw")
    result = subprocess.run([TOOL, "decode", path, out], capture_output=True, text=True)
    if result.returncode != 0:
        failures.append(f"{path}: service decode failed: {result.stderr.strip()}")
        return None
    width, height, depth = map(int, result.stdout.split())
    return read_raw(out, width, height, depth)


with tempfile.TemporaryDirectory() as tmp:
    # 1. The fast encoder's files (1..8 threads, 8 and 16 bits) read by others.
    listing = subprocess.run([TOOL, "write", tmp], capture_output=True, text=True, check=True)
    for line in listing.stdout.split("\n"):
        if not line.strip():
            continue
        name, width, height, depth = line.split()
        width, height, depth = int(width), int(height), int(depth)
        want = read_raw(os.path.join(tmp, name + ".raw"), width, height, depth)
        png = os.path.join(tmp, name + ".png")
        check(f"OpenCV reads {name}", opencv_rgba(png), want)
        with Image.open(png) as im:
            if depth == 8:
                check(f"Pillow reads {name}", np.asarray(im.convert("RGBA")), want)
            else:
                # Pillow keeps 16-bit RGBA as 8 bits per channel (the high byte).
                check(f"Pillow reads {name} (high bytes)", np.asarray(im.convert("RGBA")),
                      (want >> 8).astype(np.uint8))
        check(f"service reads back {name}", service_decode(png, tmp), want)

    # 2. Files written by Pillow and OpenCV, decoded by the service.
    rng = np.random.default_rng(7)
    h, w = 45, 67
    ramp = (np.add.outer(np.arange(h) * 3, np.arange(w) * 2) % 256).astype(np.uint8)
    cases = {
        "L": ramp,
        "LA": np.stack([ramp, 255 - ramp], axis=2),
        "RGB": np.stack([ramp, ramp // 2, rng.integers(0, 256, (h, w), dtype=np.uint8)], axis=2),
        "RGBA": np.stack([ramp, 255 - ramp, ramp // 3,
                          rng.integers(0, 256, (h, w), dtype=np.uint8)], axis=2),
    }
    for mode, array in cases.items():
        png = os.path.join(tmp, f"pillow_{mode}.png")
        Image.fromarray(array, mode).save(png, optimize=False, compress_level=6)
        with Image.open(png) as im:
            want = np.asarray(im.convert("RGBA"))
        check(f"service reads Pillow {mode}", service_decode(png, tmp), want)
    palette = Image.fromarray(ramp % 16, "L").convert("P")
    palette.putpalette(list(rng.integers(0, 256, 16 * 3, dtype=np.uint8)))
    png = os.path.join(tmp, "pillow_P.png")
    palette.save(png)
    with Image.open(png) as im:
        check("service reads Pillow P", service_decode(png, tmp), np.asarray(im.convert("RGBA")))
    for channels in (1, 3, 4):
        array = rng.integers(0, 65536, (h, w, channels), dtype=np.uint16)
        array[:, :, 0] = (ramp.astype(np.uint16) * 257)  # some structure for the filters
        png = os.path.join(tmp, f"opencv16_{channels}.png")
        cv2.imwrite(png, array if channels > 1 else array[:, :, 0])
        check(f"service reads OpenCV 16-bit, {channels} channels", service_decode(png, tmp),
              opencv_rgba(png))

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
