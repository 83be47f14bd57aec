#!/usr/bin/env python3
"""Photo-like 1080p PNGs for throughput runs on the GPU machine.

The images the throughput issue was measured with: a natural photograph
upscaled to 1920x1080 with sigma = 2 sensor noise, saved at zlib level 6
(about 3 MB). The photographs are scikit-image's bundled samples (on the GPU
machine's Python; nothing is downloaded). Usage: make_photo.py OUT_DIR [N]
writes N images (different photographs and noise seeds) as photo-K.png.
"""
import os
import sys

import cv2
import numpy as np
from skimage import data

SOURCES = ["astronaut", "coffee", "chelsea", "rocket", "immunohistochemistry", "hubble_deep_field"]


def photo(name, seed):
    img = getattr(data, name)()
    if img.ndim == 2:
        img = np.stack([img] * 3, axis=-1)
    img = img[..., :3]
    h, w = img.shape[:2]
    # Crop to 16:9, then upscale (bicubic) to 1080p.
    target_h = int(w * 9 / 16)
    if target_h <= h:
        top = (h - target_h) // 2
        img = img[top:top + target_h]
    else:
        target_w = int(h * 16 / 9)
        left = (w - target_w) // 2
        img = img[:, left:left + target_w]
    img = cv2.resize(img, (1920, 1080), interpolation=cv2.INTER_CUBIC).astype(np.float64)
    rng = np.random.default_rng(seed)
    img += rng.normal(0.0, 2.0, img.shape)
    return np.clip(np.rint(img), 0, 255).astype(np.uint8)


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    os.makedirs(out, exist_ok=True)
    made = 0
    for k in range(64):
        if made == count:
            break
        name = SOURCES[k % len(SOURCES)]
        try:
            img = photo(name, seed=k)
        except Exception as e:  # a sample missing from this scikit-image
            print(f"skip {name}: {e}", file=sys.stderr)
            continue
        path = os.path.join(out, f"photo-{made}.png")
        cv2.imwrite(path, cv2.cvtColor(img, cv2.COLOR_RGB2BGR), [cv2.IMWRITE_PNG_COMPRESSION, 6])
        print(f"{path}: {name}, seed {k}, {os.path.getsize(path)} bytes")
        made += 1


if __name__ == "__main__":
    main()
