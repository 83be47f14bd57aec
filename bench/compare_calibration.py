#!/usr/bin/env python3
"""How AUTO's choices from a server's start-up measurements
(--auto_calibration_file) compare with another table's: the built-in one's
sweeps, or a second calibration of the same device.

  python3 bench/compare_calibration.py CAL.txt @bench/auto_table_sweeps.txt
  python3 bench/compare_calibration.py CAL.txt OTHER_CAL.txt

At every point both measured (working format, size, radius), for an exact
request and for one allowing 50 dB, it picks the fastest admitted variant
in each table, as passes/blur_variants/auto_table.cc does at a measured
point, and prints where they differ and what the first table's choice
costs by the second's times (1.00: as fast as the second's own choice).
Approximate rows are admitted for the 50 dB request where the sweeps state
>= 50 dB for them at that point (a calibration file states no PSNR, so
against another calibration only large_radius, which states 83-97 dB on
every point measured, is admitted approximate).
"""
import csv
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOWED_DB = 50.0


def read_calibration(path):
    """{(vendor, device): {(working, w, h, r): {(variant, approximate): us}}}"""
    tables, current = {}, None
    with open(path) as f:
        lines = f.read().splitlines()
    if not lines or lines[0] != "rgfx-auto-calibration 1":
        sys.exit(f"{path}: not an auto calibration file")
    for line in lines[1:]:
        if line.startswith("device "):
            ids = line.split(" | ")[1]
            vendor, device = (int(x, 16) for x in ids.split(":"))
            current = tables.setdefault((vendor, device), {})
        elif line.strip():
            working, w, h, r, variant, approximate, us = line.split()
            point = (working, int(w), int(h), int(r))
            current.setdefault(point, {})[(variant, approximate == "1")] = float(us)
    return tables


def read_sweeps(args):
    """The same shape from rgfx-gpu-bench --sweep CSVs, and their stated PSNRs."""
    paths = []
    for a in args:
        if a.startswith("@"):
            with open(a[1:]) as f:
                paths += [os.path.join(ROOT, l.split("#", 1)[0].strip()) for l in f
                          if l.split("#", 1)[0].strip()]
        else:
            paths.append(a)
    tables, stated = {}, {}
    for path in paths:
        with open(path) as f:
            for r in csv.DictReader(l for l in f if not l.startswith("#")):
                if r.get("resolved") != r.get("variant") or not r.get("total_us"):
                    continue
                ids = (int(r["vendor_id"]), int(r["device_id"]))
                point = (r["working"], int(r["width"]), int(r["height"]), int(r["radius"]))
                approximate = bool(r["stated_psnr_db"])
                tables.setdefault(ids, {}).setdefault(point, {})[(r["variant"], approximate)] = \
                    float(r["total_us"])
                if approximate:
                    stated[(ids, point, r["variant"])] = float(r["stated_psnr_db"])
    return tables, stated


def choose(rows, allowed, admits):
    """The fastest admitted row: exact rows, and for an allowed request a
    variant's approximate row instead where it has one it admits."""
    best = None
    for variant in {v for v, _ in rows}:
        key = (variant, False)
        if allowed and (variant, True) in rows:
            key = (variant, True) if admits(variant) else None
        if key is None or key not in rows:
            continue
        if best is None or rows[key] < rows[best]:
            best = key
    return best


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    first = read_calibration(sys.argv[1])
    if sys.argv[2].endswith(".txt") and not sys.argv[2].startswith("@"):
        second, stated = read_calibration(sys.argv[2]), {}
    else:
        second, stated = read_sweeps(sys.argv[2:])
    for ids, points in first.items():
        other = second.get(ids)
        if not other:
            print(f"{ids[0]:04x}:{ids[1]:04x}: not in the second table")
            continue
        ratios, differ, compared = [], 0, 0
        for point in sorted(set(points) & set(other)):
            for allowed in (False, True):
                def admits(variant):
                    if stated:
                        return stated.get((ids, point, variant), 0) >= ALLOWED_DB
                    return variant == "large_radius"
                a = choose(points[point], allowed, admits)
                b = choose(other[point], allowed, admits)
                if a is None or b is None:
                    continue
                compared += 1
                # What the first's choice costs by the second's times (the
                # same plan: its row of the same accuracy).
                cost = other.get(point, {}).get(a)
                ratio = cost / other[point][b] if cost else float("nan")
                ratios.append(ratio)
                if a != b:
                    differ += 1
                    print(f"  {point[0]} {point[1]}x{point[2]} r={point[3]} "
                          f"{'50 dB' if allowed else 'exact'}: {a[0]} ({points[point][a]:.1f} µs) "
                          f"against {b[0]} ({other[point][b]:.1f}); by the second's times "
                          f"{ratio:.2f}x")
        finite = [r for r in ratios if r == r]
        print(f"{ids[0]:04x}:{ids[1]:04x}: {compared} choices compared, {differ} differ; "
              f"the first's choices by the second's times: median "
              f"{statistics.median(finite) if finite else float('nan'):.2f}x, worst "
              f"{max(finite) if finite else float('nan'):.2f}x")


if __name__ == "__main__":
    main()
