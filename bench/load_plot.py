#!/usr/bin/env python3
"""Service throughput report from `rgfx load --format json` files (what
scripts/gpu/throughput writes): medians over the runs of each configuration,
a Markdown table on stdout and two SVG charts (standard library only):
  throughput.svg  requests/s against callers
  latency.svg     client p50 and p99 against callers
Usage: python3 bench/load_plot.py OUT_DIR RESULTS_DIR [PREFIX=LABEL ...]
RESULTS_DIR holds [PREFIX]png-sweep-N.json (a --sweep each) and [PREFIX]raw-c32-N.json /
[PREFIX]copy-c32-N.json (one run each), optionally [PREFIX]uds-raw-c32-N.json (the raw
load over a Unix socket); N numbers the repetitions. With
PREFIX=LABEL arguments each prefix is one configuration (its own tables, one
line per configuration in the charts); without, all files are one.
"""
import collections
import glob
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import chart  # noqa: E402


def runs_of(path):
    with open(path) as f:
        doc = json.load(f)
    return doc["runs"] if "runs" in doc else [doc]


def median(values):
    return statistics.median(values) if values else float("nan")


def summarize(runs):
    """The median over repetitions of each figure of one configuration."""
    stage = lambda r, s: r["server_stages_ms"].get(s, {}).get("p50", float("nan"))
    out = {
        "runs": len(runs),
        "rate": median([r["rate"] for r in runs]),
        "rates": [r["rate"] for r in runs],
        "p50": median([r["latency_ms"]["p50"] for r in runs]),
        "p99": median([r["latency_ms"]["p99"] for r in runs]),
        "ok": sum(r["ok"] for r in runs),
        "count": sum(r["count"] for r in runs),
        "codes": collections.Counter(),
    }
    for r in runs:
        out["codes"].update(r["codes"])
    for s in ("queue", "decode", "upload", "gpu", "download", "encode", "total"):
        out[s] = median([stage(r, s) for r in runs])
    passes = collections.defaultdict(list)
    for r in runs:
        for name, dist in r.get("pass_gpu_ms", {}).items():
            passes[name].append(dist["p50"])
    out["passes"] = {name: median(v) for name, v in passes.items()}
    return out


def report(results, prefix):
    """Prints the tables of one configuration; returns its PNG sweep summary."""
    by_callers = collections.defaultdict(list)
    for path in sorted(glob.glob(f"{results}/{prefix}png-sweep-*.json")):
        for r in runs_of(path):
            by_callers[r["concurrency"]].append(r)
    sweep = {c: summarize(rs) for c, rs in sorted(by_callers.items())}
    print("PNG in, PNG out (median of the runs at each point; ms are medians of per-request p50s)\n")
    print("| callers | requests/s (runs) | p50 ms | p99 ms | server queue | decode | upload "
          "| GPU | download | encode | statuses |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for c, s in sweep.items():
        rates = ", ".join(f"{x:.0f}" for x in s["rates"])
        codes = " ".join(f"{k}:{v}" for k, v in sorted(s["codes"].items()))
        print(f"| {c} | **{s['rate']:.0f}** ({rates}) | {s['p50']:.1f} | {s['p99']:.1f} "
              f"| {s['queue']:.2f} | {s['decode']:.1f} | {s['upload']:.2f} | {s['gpu']:.3f} "
              f"| {s['download']:.2f} | {s['encode']:.1f} | {codes} |")
    print("\nGPU time per pass (median of per-request p50, ms):\n")
    names = sorted({n for s in sweep.values() for n in s["passes"]})
    print("| callers | " + " | ".join(names) + " |")
    print("|---:|" + "---:|" * len(names))
    for c, s in sweep.items():
        print(f"| {c} | " + " | ".join(f"{s['passes'].get(n, float('nan')):.3f}" for n in names) + " |")
    raw = summarize([r for p in sorted(glob.glob(f"{results}/{prefix}raw-c32-*.json"))
                     for r in runs_of(p)])
    copy = summarize([r for p in sorted(glob.glob(f"{results}/{prefix}copy-c32-*.json"))
                      for r in runs_of(p)])
    uds = summarize([r for p in sorted(glob.glob(f"{results}/{prefix}uds-raw-c32-*.json"))
                     for r in runs_of(p)])
    if raw["runs"] and copy["runs"]:
        print("\nRaw RGBA8 in and out, 32 callers:\n")
        print("| graph | requests/s (runs) | p50 ms | p99 ms | server GPU ms | statuses |")
        print("|---|---|---:|---:|---:|---|")
        rows = [("blur r=64", raw), ("copy (transport floor)", copy)]
        if uds["runs"]:
            rows.append(("blur r=64 over a Unix socket", uds))
        for name, s in rows:
            rates = ", ".join(f"{x:.0f}" for x in s["rates"])
            codes = " ".join(f"{k}:{v}" for k, v in sorted(s["codes"].items()))
            print(f"| {name} | **{s['rate']:.0f}** ({rates}) | {s['p50']:.1f} | {s['p99']:.1f} "
                  f"| {s['gpu']:.3f} | {codes} |")
        print(f"\nraw blur requests/s over copy requests/s: {raw['rate'] / copy['rate']:.2f}")
    return sweep


def main():
    out_dir, results = sys.argv[1], sys.argv[2]
    configs = [arg.split("=", 1) for arg in sys.argv[3:]] or [("", "PNG → PNG")]
    os.makedirs(out_dir, exist_ok=True)
    throughput, latency = {}, {}
    for prefix, label in configs:
        if len(configs) > 1:
            print(f"\n#### {label} (files {prefix}*)\n")
        sweep = report(results, prefix)
        throughput[label] = [(c, s["rate"]) for c, s in sweep.items()]
        p50_name, p99_name = ("p50", "p99") if len(configs) == 1 else (f"{label} p50", f"~{label} p99")
        latency[p50_name] = [(c, s["p50"]) for c, s in sweep.items()]
        latency[p99_name] = [(c, s["p99"]) for c, s in sweep.items()]
    chart("rgfx PNG in, PNG out (1080p photo, blur r=64): throughput", "callers",
          "requests/s", throughput, f"{out_dir}/throughput.svg", logx=True, logy=False)
    chart("rgfx PNG in, PNG out (1080p photo, blur r=64): client latency", "callers", "ms",
          latency, f"{out_dir}/latency.svg", logx=True, logy=False)


if __name__ == "__main__":
    main()
