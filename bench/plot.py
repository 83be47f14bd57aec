#!/usr/bin/env python3
"""SVG charts (standard library only) from `rgfx-gpu-bench --sweep` CSV:
  radius-<working>.svg  median GPU µs (H+V) against radius at the most common
                        size, one line per variant, with the copy floor and
                        the fp32 arithmetic floor
  size-<working>.svg    µs per megapixel against image size at radius 64
  floor-<working>.svg   the ratio to the copy floor against radius
Usage: python3 bench/plot.py OUT_DIR SWEEP.csv [...]   (one device's CSVs)
"""
import collections
import csv
import math
import os
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#7f7f7f", "#17becf"]


def nice_step(raw):
    """1, 2 or 5 times a power of ten, at least `raw`."""
    e = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    return next(m * e for m in (1, 2, 5, 10) if m * e >= raw)


def chart(title, xlabel, ylabel, series, path, logx=True, logy=True):
    """series: {name: [(x, y), ...]}; dashed when the name starts with '~'."""
    W, H, L, R, T, B = 760, 460, 70, 190, 40, 50
    pts = [p for s in series.values() for p in s if p[1] > 0]
    if not pts:
        return
    fx = (lambda v: math.log10(v)) if logx else (lambda v: v)
    fy = (lambda v: math.log10(v)) if logy else (lambda v: v)
    x0, x1 = min(fx(p[0]) for p in pts), max(fx(p[0]) for p in pts)
    y0, y1 = min(fy(p[1]) for p in pts), max(fy(p[1]) for p in pts)
    if logy:
        y0, y1 = math.floor(y0), math.ceil(y1)
    else:
        y0 = min(y0, 0)
    x1 = x1 if x1 > x0 else x0 + 1
    y1 = y1 if y1 > y0 else y0 + 1
    sx = lambda v: L + (fx(v) - x0) / (x1 - x0) * (W - L - R)
    sy = lambda v: H - B - (fy(v) - y0) / (y1 - y0) * (H - T - B)
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'font-family="sans-serif" font-size="11">',
         f'<rect width="{W}" height="{H}" fill="white"/>',
         f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="13">{title}</text>',
         f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" stroke="black"/>',
         f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" stroke="black"/>',
         f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">{xlabel}</text>',
         f'<text x="16" y="{(T + H - B) / 2}" transform="rotate(-90 16 {(T + H - B) / 2})" '
         f'text-anchor="middle">{ylabel}</text>']
    if logy:
        for e in range(int(y0), int(y1) + 1):
            y = H - B - (e - y0) / (y1 - y0) * (H - T - B)
            o.append(f'<line x1="{L}" y1="{y}" x2="{W - R}" y2="{y}" stroke="#ddd"/>')
            o.append(f'<text x="{L - 4}" y="{y + 4}" text-anchor="end">{10 ** e:g}</text>')
    else:
        step = nice_step((y1 - y0) / 5)
        v = math.ceil(y0 / step) * step
        while v <= y1 + 1e-9:
            y = sy(v)
            o.append(f'<line x1="{L}" y1="{y}" x2="{W - R}" y2="{y}" stroke="#ddd"/>')
            o.append(f'<text x="{L - 4}" y="{y + 4}" text-anchor="end">{v:g}</text>')
            v += step
    xs = sorted({p[0] for p in pts})
    for x in xs:
        o.append(f'<text x="{sx(x)}" y="{H - B + 14}" text-anchor="middle">{x:g}</text>')
    for i, (name, s) in enumerate(series.items()):
        s = sorted(p for p in s if p[1] > 0)
        if not s:
            continue
        colour = ("#000" if "copy" in name else "#888") if name.startswith("~") else COLOURS[i % len(COLOURS)]
        dash = ' stroke-dasharray="5,4"' if name.startswith("~") else ""
        d = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in s)
        o.append(f'<polyline points="{d}" fill="none" stroke="{colour}" stroke-width="2"{dash}/>')
        for x, y in s:
            o.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{colour}"/>')
        ly = T + 14 * i + 10
        o.append(f'<line x1="{W - R + 10}" y1="{ly - 4}" x2="{W - R + 30}" y2="{ly - 4}" '
                 f'stroke="{colour}" stroke-width="2"{dash}/>')
        o.append(f'<text x="{W - R + 34}" y="{ly}">{name.lstrip("~")}</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o))


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rows = []
    for path in sys.argv[2:]:
        with open(path) as f:
            rows += [r for r in csv.DictReader(l for l in f if not l.startswith("#"))
                     if r.get("resolved") not in (None, "", "refused") and r.get("total_us")]
    # One device per chart set (docs/blur/<device>/): points of two GPUs on
    # one line would be meaningless.
    devices = sorted({r["device"].strip('"') for r in rows})
    if len(devices) != 1:
        sys.exit(f"plot.py: the CSVs hold {len(devices)} devices ({', '.join(devices)}); give one's")
    on = f" on {devices[0]}"

    # Variants that are exact unless a request allows otherwise (fast in
    # RGBA32F through fp16): their approximate points are a series of their own.
    def label(r):
        if r["variant"] == "fast" and r.get("stated_psnr_db"):
            return "fast, approximation allowed"
        return r["variant"]

    for working in sorted({r["working"] for r in rows}):
        rs = [r for r in rows if r["working"] == working]
        size = collections.Counter((r["width"], r["height"]) for r in rs).most_common(1)[0][0]
        at = [r for r in rs if (r["width"], r["height"]) == size]
        series, ratio = collections.defaultdict(list), collections.defaultdict(list)
        floors, fp32 = {}, {}
        for r in at:
            radius = int(r["radius"])
            series[label(r)].append((radius, float(r["total_us"])))
            ratio[label(r)].append((radius, float(r["x_copy_floor"])))
            floors[radius] = float(r["copy_floor_us"])
            fp32[radius] = float(r["fp32_floor_us"])
        series["~copy floor"] = sorted(floors.items())
        series["~fp32 floor"] = sorted(fp32.items())
        w, h = size
        chart(f"gaussian_blur {w}x{h} {working}{on}: GPU time (H+V) against radius", "radius (px)",
              "median GPU µs", series, f"{out_dir}/radius-{working}.svg")
        chart(f"gaussian_blur {w}x{h} {working}{on}: time over the copy floor", "radius (px)",
              "x copy floor", ratio, f"{out_dir}/floor-{working}.svg")
        by_size = collections.defaultdict(list)
        for r in rs:
            if int(r["radius"]) != 64:
                continue
            px = int(r["width"]) * int(r["height"])
            by_size[label(r)].append((px / 1e6, float(r["total_us"]) / (px / 1e6)))
        if len({p[0] for s in by_size.values() for p in s}) > 1:
            chart(f"gaussian_blur radius 64 {working}{on}: µs per megapixel against size",
                  "megapixels", "µs per megapixel", by_size, f"{out_dir}/size-{working}.svg")


if __name__ == "__main__":
    main()
