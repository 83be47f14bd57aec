#!/bin/bash
# CPU per raw RGBA8 round trip over loopback TCP and over a Unix domain
# socket: an rgfx-server on each address in turn, `rgfx load` through the
# copy graph with raw RGBA8 in and out, then the server's CPU time (from
# /proc) and the client's (from /usr/bin/time, its start-up included: ~30
# CPU-ms to decode the sample and serialize the request once) divided by the
# requests.
# Usage: bench/transport_cpu.sh [BUILD_DIR] [IMAGES_DIR] [SECONDS]
# (no IMAGES_DIR: one 1920x1080 sample made by scripts/make_sample_png.py;
# RGFX_CLIENT=path runs another rgfx binary as the client, e.g. an older
# build, against BUILD_DIR's server)
set -eu
cd "$(dirname "$0")/.."
B=${1:-build}
SECONDS_PER_RUN=${3:-20}
CLIENT=${RGFX_CLIENT:-$B/client/rgfx}
SOCKET_DIR=$(mktemp -d)
trap 'rm -rf "$SOCKET_DIR"' EXIT
IMAGES=${2:-}
if [ -z "$IMAGES" ]; then
  IMAGES=$SOCKET_DIR/images && mkdir -p "$IMAGES"
  python3 scripts/make_sample_png.py "$IMAGES/sample.png" 1920 1080 >/dev/null
fi
TICK=$(getconf CLK_TCK)
for addr in 127.0.0.1:50077 "unix:$SOCKET_DIR/rgfx.sock"; do
  "$B/service/rgfx-server" --listen="$addr" --metrics_listen= >"$SOCKET_DIR/server.log" 2>&1 &
  server=$!
  for _ in $(seq 1 100); do "$CLIENT" health --server "$addr" >/dev/null 2>&1 && break; sleep 0.2; done
  load=("$CLIENT" load --server "$addr" --graph examples/graphs/copy.json --images "$IMAGES"
        -c 2 --input_encoding RGBA8 --output_encoding RGBA8 --format json)
  "${load[@]}" -z 5s --warmup 1s >/dev/null 2>&1  # warm-up: pipelines, staging
  before=$(awk '{print $14 + $15}' "/proc/$server/stat")
  /usr/bin/time -f "%U %S %R" -o "$SOCKET_DIR/client.time" "${load[@]}" -z "${SECONDS_PER_RUN}s" \
    --warmup 0s >"$SOCKET_DIR/load.json" 2>/dev/null
  after=$(awk '{print $14 + $15}' "/proc/$server/stat")
  kill -TERM "$server"; wait "$server" || true
  python3 - "$addr" "$SOCKET_DIR/load.json" "$SOCKET_DIR/client.time" "$before" "$after" "$TICK" <<'PY'
import json, sys
addr, load, client_time, before, after, tick = sys.argv[1:]
d = json.load(open(load))
n = d["count"]
user, system, faults = map(float, open(client_time).read().split())
server_ms = (float(after) - float(before)) / float(tick) * 1000
client_ms = (user + system) * 1000
print(f"{addr}: {n} requests ({d['rate']:.1f}/s); CPU-ms per request: server {server_ms / n:.1f}, "
      f"client {client_ms / n:.1f} (user {user * 1000 / n:.1f}, system {system * 1000 / n:.1f}; "
      f"{faults / n:.0f} page faults)")
PY
done
