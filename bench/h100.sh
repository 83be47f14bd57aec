#!/bin/bash
# One batched H100 call (device tool, carry .gl and build-blur/dev): the
# sweeps for the charts and the auto table, the peers, then the blur tests
# on the GPU (validation on). Results land in $OUT. Usage: bash bench/h100.sh
set -u
D=build-blur/dev
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
B="$D/bin/rgfx-gpu-bench --sweep --warmup_ms 1500"
V=exact,tiled_halo,tuned,fast,large_radius,decimated
timeout 150 bash $D/on-gpu $B --sweep_variants $V --sweep_formats rgba16f,rgba32f \
  --sweep_sizes 1920x1080 --sweep_radii 1,2,4,8,16,32,64,128,256,512,1024 \
  --csv "$OUT/sweep-radius.csv" > "$OUT/sweep-radius.log" 2>&1
timeout 90 bash $D/on-gpu $B --sweep_variants $V --sweep_formats rgba16f,rgba32f \
  --sweep_sizes 256x256,512x512,1024x1024,2048x2048,4096x4096,8192x8192 --sweep_radii 64 \
  --csv "$OUT/sweep-size.csv" > "$OUT/sweep-size.log" 2>&1
timeout 80 bash $D/on-gpu $B --sweep_variants $V --sweep_formats rgba16f,rgba32f \
  --sweep_sizes 512x512,4096x4096 --sweep_radii 2,4,8,16,32,64,256,1024 --sweep_runs 3 \
  --csv "$OUT/sweep-auto.csv" > "$OUT/sweep-auto.log" 2>&1
timeout 70 python3 bench/peers.py --runs 20 > "$OUT/peers.csv" 2> "$OUT/peers.err"
for t in blur_variants_tests large_radius_tests auto_table_tests; do
  timeout 45 bash $D/on-gpu $D/bin/$t --gtest_brief=1 2>&1 | tail -25
done > "$OUT/tests.txt" 2>&1
