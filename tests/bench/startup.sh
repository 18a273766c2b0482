#!/usr/bin/env bash
# How long `sentient serve` takes, on an empty home, from launch until /api/health answers.
# Bounded: RUNS launches (default 10), each given at most 10 s. Loopback only. The engine picks
# its port and prints it on its ready line; one HTTP request follows at once on a plain socket
# (polling with a new curl process every few milliseconds added up to 10 ms to each figure).
# Usage: npm run bench:startup  (or RUNS=20 bash tests/bench/startup.sh [path/to/sentient])
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
BIN="${1:-$TARGET/debug/sentient}"
RUNS="${RUNS:-10}"
[ -x "$BIN" ] || { echo "Build it first: cargo build -p sentient-engine --bin sentient" >&2; exit 1; }

python3 - "$BIN" "$RUNS" "$(nproc)" <<'PY'
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, time

binary, runs, cores = sys.argv[1], int(sys.argv[2]), sys.argv[3]
ready, answered = [], []
for i in range(runs):
    scratch = tempfile.mkdtemp()
    home = os.path.join(scratch, "h")
    start = time.perf_counter()
    engine = subprocess.Popen([binary, "serve", "--home", home, "--port", "0", "--token", "bench"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        line = engine.stdout.readline()
        ready.append((time.perf_counter() - start) * 1000)
        port = int(json.loads(line)["url"].rsplit(":", 1)[1])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            if not s.recv(64).startswith(b"HTTP/1.1 200"):
                sys.exit(f"run {i + 1}: /api/health did not answer 200")
        answered.append((time.perf_counter() - start) * 1000)
    finally:
        engine.terminate()
        engine.wait(timeout=10)
    if not os.path.isdir(os.path.join(home, "workspace")):
        sys.exit(f"run {i + 1}: layout not created")
    shutil.rmtree(scratch)

def line(name, xs):
    xs = sorted(xs)
    print(f"  {name:<28} min {xs[0]:.0f} ms   median {statistics.median(xs):.0f} ms   max {xs[-1]:.0f} ms")

print(f"sentient serve, empty home ({runs} runs, {os.path.basename(binary)} at {binary}, {cores} cores)")
line("ready line printed", ready)
line("/api/health answered", answered)
PY
