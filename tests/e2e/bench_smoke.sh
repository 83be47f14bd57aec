#!/usr/bin/env bash
# CI smoke of `rgfx bench` (issue 4: "the bench itself is run in CI on a small
# image so it cannot rot"): the real rgfx-server on 127.0.0.1:0, the bench on
# a 67x35 image with few runs, then checks that it exits 0 and writes
# lineage.csv, sweep.csv, branch.csv and lineage.svg with a row for every
# gaussian_blur variant the server lists; then SIGTERM, and the server must
# exit 0 (drained shutdown). Also runs `rgfx load` briefly. Checks no timing:
# figures are not tested.
#
#   bench_smoke.sh RGFX_SERVER RGFX_CLIENT
set -euo pipefail
server_bin=$1
client_bin=$2

work=$(mktemp -d "${TMPDIR:-/tmp}/rgfx-bench-smoke.XXXXXX")
log="$work/server.log"
out="$work/bench"
server=""
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill -KILL "$server" || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "bench_smoke: $*" >&2
  echo "--- server log" >&2
  cat "$log" >&2 || true
  exit 1
}

"$server_bin" --listen=127.0.0.1:0 --metrics_listen=127.0.0.1:0 2>"$log" &
server=$!
port=""
for _ in $(seq 1 300); do  # up to 30 s: lavapipe compiles pipelines on start
  port=$(grep -oE 'serving .*port=[0-9]+' "$log" | grep -oE '[0-9]+$' | head -1 || true)
  [ -n "$port" ] && break
  kill -0 "$server" 2>/dev/null || fail "rgfx-server exited before serving"
  sleep 0.1
done
[ -n "$port" ] || fail "rgfx-server did not start within 30 s"
addr="127.0.0.1:$port"

variants=$("$client_bin" passes --json --server "$addr" | python3 -c '
import json, sys
for p in json.load(sys.stdin)["passes"]:
    if p["name"] == "gaussian_blur":
        print("\n".join(v for v in p["variants"] if v != "auto"))')
[ -n "$variants" ] || fail "ListPasses lists no gaussian_blur variants"

"$client_bin" bench --server "$addr" --width 67 --height 35 --radius 5 --radii 1,5 \
  --runs 2 --warmup 1 --sweep_runs 1 --out "$out" >"$work/bench.txt" 2>&1 ||
  { cat "$work/bench.txt" >&2; fail "rgfx bench exited $?"; }

for f in lineage.csv sweep.csv branch.csv lineage.svg; do
  [ -s "$out/$f" ] || fail "rgfx bench did not write $f"
done
python3 - "$out" $variants <<'EOF' || fail "bench results are incomplete"
import csv, sys
out, variants = sys.argv[1], sys.argv[2:]
ok = True
def rows(name):
    with open(f"{out}/{name}") as f:
        return {r[0]: r for r in list(csv.reader(f))[1:] if r}
for name in ("lineage.csv", "sweep.csv"):
    table = rows(name)
    for v in variants:
        if v not in table:
            print(f"{name}: no row for variant {v}", file=sys.stderr); ok = False
        elif any(cell.startswith("refused") for cell in table[v][1:]):
            print(f"{name}: {v} refused: {table[v]}", file=sys.stderr); ok = False
branch = rows("branch.csv")
if len(branch) != 3:
    print(f"branch.csv: {len(branch)} rows, expected 3 modes", file=sys.stderr); ok = False
svg = open(f"{out}/lineage.svg").read()
for v in variants:
    if f">{v}<" not in svg:
        print(f"lineage.svg: no bar labelled {v}", file=sys.stderr); ok = False
sys.exit(0 if ok else 1)
EOF

# `rgfx load` against the same server: 6 requests from 3 callers, all OK,
# and a bad request counted as an error with its code (exit 1).
python3 "$(dirname "$0")/../../scripts/make_sample_png.py" "$work/sample.png" 64 48
graph="$(dirname "$0")/../../examples/graphs/blur.json"
"$client_bin" load --server "$addr" --graph "$graph" "$work/sample.png" --concurrency 3 \
  --requests 6 >"$work/load.txt" 2>&1 || { cat "$work/load.txt" >&2; fail "rgfx load exited $?"; }
grep -q "^6 answered OK, 0 failed" "$work/load.txt" || { cat "$work/load.txt" >&2; fail "rgfx load: not 6 OK"; }
grep -q "latency ms (client): p50" "$work/load.txt" || fail "rgfx load printed no percentiles"
if "$client_bin" load --server "$addr" --graph "$graph" "$work/sample.png" --set blur.radius=-1 \
    --requests 2 >"$work/load_bad.txt" 2>&1; then
  fail "rgfx load of a bad request exited 0"
fi
grep -q "^error INVALID_ARGUMENT: pass 'blur'" "$work/load_bad.txt" || { cat "$work/load_bad.txt" >&2; fail "rgfx load: error not reported"; }

# `rgfx process --input_color_space`: sRGB inputs (the default for PNG) are
# blurred in linear light and encoded back; LINEAR ones as they are. Through
# the copy graph with float output LINEAR must return the 8-bit values as
# they are (v/255), and through the blur the two must differ (the flag
# reached the server).
for cs in LINEAR ""; do
  for g in copy blur; do
    "$client_bin" process --server "$addr" --graph "$(dirname "$0")/../../examples/graphs/$g.json" \
      --output_encoding RGBA32F ${cs:+--input_color_space $cs} "$work/sample.png" \
      -o "$work/$g-${cs:-default}.f32" >"$work/process.txt" 2>&1 ||
      { cat "$work/process.txt" >&2; fail "rgfx process $g ${cs:-default} exited $?"; }
  done
done
python3 - "$(dirname "$0")/../../scripts" "$work/copy-LINEAR.f32" "$work/blur-LINEAR.f32" "$work/blur-default.f32" <<'EOF' ||
import struct, sys
sys.path.insert(0, sys.argv[1])
from make_sample_png import pixel  # the sample's own pixels (64x48, written above)
def f32(path):
    d = open(path, "rb").read()
    return struct.unpack(f"<{len(d) // 4}f", d)
px = b"".join(pixel(x, y, 64, 48) for y in range(48) for x in range(64))
copy_lin = f32(sys.argv[2])
blur_lin, blur_srgb = f32(sys.argv[3]), f32(sys.argv[4])
# Tolerance 1e-3: the fp16 working format keeps 11 bits (2^-11 relative).
copy_error = max(abs(copy_lin[i] - px[i] / 255) for i in range(len(px)))
apart = max(abs(a - b) for a, b in zip(blur_lin, blur_srgb))
print(f"LINEAR copy max error {copy_error:.2e}; blur LINEAR vs sRGB differ by up to {apart:.3f}")
sys.exit(0 if copy_error < 1e-3 and apart > 1e-2 else 1)
EOF
  fail "rgfx process --input_color_space: values not as declared"

kill -TERM "$server"
rc=0
wait "$server" || rc=$?
server=""
[ "$rc" -eq 0 ] || fail "rgfx-server exited $rc after SIGTERM (expected 0)"
echo "bench_smoke: ok ($(echo $variants | wc -w) variants)"
