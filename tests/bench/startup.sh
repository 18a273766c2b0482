#!/usr/bin/env bash
# How long `sentient serve` takes, on an empty home, from launch until /api/health answers.
# Bounded: RUNS launches (default 10), each given at most 10 s. Loopback only. The engine picks
# its port and prints it on its ready line; one HTTP request follows at once on a plain socket
# (polling with a new curl process every few milliseconds added up to 10 ms to each figure).
# SAME_HOME=1 starts every run on one home made by a first, uncounted run (no layout, settings or
# migrations to write): the start of every day after the first.
# Usage: npm run bench:startup  (or RUNS=20 SAME_HOME=1 bash tests/bench/startup.sh [path/to/sentient])
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
BIN="${1:-$TARGET/debug/sentient}"
RUNS="${RUNS:-10}"
[ -x "$BIN" ] || { echo "Build it first: cargo build -p sentient-engine --bin sentient" >&2; exit 1; }

python3 - "$BIN" "$RUNS" "$(nproc)" "${SAME_HOME:-}" <<'PY'
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time

binary, runs, cores, same_home = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
ready, answered = [], []
kept = tempfile.mkdtemp() if same_home else None
for i in range(-1 if same_home else 0, runs):
    scratch = kept or tempfile.mkdtemp()
    home = os.path.join(scratch, "h")
    start = time.perf_counter()
    engine = subprocess.Popen([binary, "serve", "--home", home, "--port", "0", "--token", "bench"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = engine.stdout.readline()
        ready_ms = (time.perf_counter() - start) * 1000
        port = int(json.loads(line)["url"].rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            if not s.recv(64).startswith(b"HTTP/1.1 200"):
                sys.exit(f"run {i + 1}: /api/health did not answer 200")
        answered_ms = (time.perf_counter() - start) * 1000
        if i >= 0:
            ready.append(ready_ms)
            answered.append(answered_ms)
    finally:
        engine.terminate()
        engine.wait(timeout=10)
    if not os.path.isdir(os.path.join(home, "workspace")):
        sys.exit(f"run {i + 1}: layout not created")
    if not same_home:
        shutil.rmtree(scratch)
if kept:
    shutil.rmtree(kept)

def line(name, xs):
    xs = sorted(xs)
    print(f"  {name:<28} min {xs[0]:.1f} ms   median {statistics.median(xs):.1f} ms   max {xs[-1]:.1f} ms")

print(f"sentient serve, {'the same home' if same_home else 'empty home'} ({runs} runs, {os.path.basename(binary)} at {binary}, {cores} cores)")
line("ready line printed", ready)
line("/api/health answered", answered)
PY
