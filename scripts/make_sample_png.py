#!/usr/bin/env python3
"""Writes the sample image scripts/run blurs: an RGBA test pattern, 960x540
unless WIDTH HEIGHT follow the path (colour gradients, sharp bars, a
soft-edged transparent disc and fine stripes, so a blur is easy to see). Made by this project from code alone; no
licence restrictions. Standard library only (zlib, struct)."""
import math
import struct
import sys
import zlib


def pixel(x, y, w, h):
    # Background: hue gradient left to right, darkening downwards.
    t = x / (w - 1)
    v = 1.0 - 0.6 * y / (h - 1)
    r = 0.5 + 0.5 * math.cos(2 * math.pi * (t + 0.0))
    g = 0.5 + 0.5 * math.cos(2 * math.pi * (t + 1 / 3))
    b = 0.5 + 0.5 * math.cos(2 * math.pi * (t + 2 / 3))
    r, g, b, a = r * v, g * v, b * v, 1.0
    # Sharp black and white bars across the middle.
    if h * 0.42 < y < h * 0.58 and (x // 24) % 2 == 0:
        r = g = b = 1.0 if (x // 48) % 2 == 0 else 0.0
    # Fine vertical stripes in the lower left.
    if y > h * 0.72 and x < w * 0.35 and x % 4 < 2:
        r, g, b = 1.0, 0.9, 0.2
    # A partly transparent disc in the upper right (alpha edges show fringes).
    d = math.hypot(x - w * 0.75, y - h * 0.3) / (h * 0.2)
    if d < 1.0:
        r, g, b, a = 0.1, 0.4, 1.0, 0.35 + 0.65 * (1 - d)
    return bytes(max(0, min(255, round(c * 255))) for c in (r, g, b, a))


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "sample.png"
    w, h = (int(sys.argv[2]), int(sys.argv[3])) if len(sys.argv) > 3 else (960, 540)
    rows = b"".join(b"\0" + b"".join(pixel(x, y, w, h) for x in range(w)) for y in range(h))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))
    with open(path, "wb") as f:
        f.write(png)


if __name__ == "__main__":
    main()
