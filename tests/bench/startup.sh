#!/usr/bin/env bash
# How long `sentient serve` takes, on an empty home, from launch until /api/health answers.
# Bounded: RUNS launches (default 10), each given at most 10 s. Loopback only.
# Usage: npm run bench:startup  (or RUNS=20 bash tests/bench/startup.sh [path/to/sentient])
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
BIN="${1:-$TARGET/debug/sentient}"
RUNS="${RUNS:-10}"
[ -x "$BIN" ] || { echo "Build it first: cargo build -p sentient-engine --bin sentient" >&2; exit 1; }

times=()
for i in $(seq 1 "$RUNS"); do
  home="$(mktemp -d)"
  port=$(( 20000 + RANDOM % 20000 ))
  start=$(date +%s%N)
  "$BIN" serve --home "$home/h" --port "$port" --token bench >/dev/null 2>&1 &
  pid=$!
  ms=""
  deadline=$(( start + 10000000000 ))
  while [ "$(date +%s%N)" -lt "$deadline" ]; do
    if curl -sf --noproxy '*' "http://127.0.0.1:$port/api/health" >/dev/null 2>&1; then
      ms=$(( ($(date +%s%N) - start) / 1000000 ))
      break
    fi
    sleep 0.005
  done
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -d "$home/h/workspace" ] || { echo "run $i: layout not created" >&2; exit 1; }
  rm -rf "$home"
  [ -n "$ms" ] || { echo "run $i: no answer within 10 s" >&2; exit 1; }
  times+=("$ms")
done
sorted=($(printf '%s\n' "${times[@]}" | sort -n))
n=${#sorted[@]}
echo "sentient serve, empty home -> /api/health answering ($n runs, $(basename "$BIN"), $(nproc) cores)"
echo "  min ${sorted[0]} ms   median ${sorted[$((n / 2))]} ms   max ${sorted[$((n - 1))]} ms"
