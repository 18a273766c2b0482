#!/usr/bin/env bash
# What handing the binary's pages back costs (issue 33): the window's first requests answered by
# an engine that just answered them (its pages mapped) and by one that has been quiet for 3 s
# (its pages handed back a second after the last request). Bounded: ROUNDS rounds (default 10)
# of 15 requests each way on one keep-alive connection, loopback only. Not part of the tests.
# Usage: npm run bench:after-idle  (ROUNDS=10 bash tests/bench/after-idle.sh [path/to/sentient])
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
BIN="${1:-$TARGET/release/sentient}"
[ -x "$BIN" ] || { echo "Build it first: cargo build --release -p sentient-engine --bin sentient" >&2; exit 1; }

python3 - "$BIN" "${ROUNDS:-10}" <<'PY'
import http.client, json, shutil, statistics, subprocess, sys, tempfile, time

binary, rounds = sys.argv[1], int(sys.argv[2])
scratch = tempfile.mkdtemp()
engine = subprocess.Popen([binary, "serve", "--home", f"{scratch}/h", "--port", "0", "--token", "bench"],
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
# What the window asks for when it opens (the same list as idle-memory.sh).
paths = ["/", "/api/bootstrap", "/api/config", "/api/config/schema", "/api/stop", "/api/sessions",
         "/api/tasks", "/api/notifications", "/api/integrations", "/api/integrations/mcp", "/api/hooks",
         "/api/memories", "/api/nodes", "/api/models/presets", "/api/secrets/store"]
try:
    port = int(json.loads(engine.stdout.readline())["url"].rsplit(":", 1)[1])

    def burst():
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        start = time.perf_counter()
        for path in paths:
            connection.request("GET", path, headers={"Authorization": "Bearer bench"})
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                sys.exit(f"{path} answered {answer.status}")
        connection.close()
        return (time.perf_counter() - start) * 1000

    burst()
    mapped, handed_back = [], []
    for _ in range(rounds):
        time.sleep(3)  # quiet: a second after the last request the pages go back
        handed_back.append(burst())
        time.sleep(0.2)  # the pages are still mapped
        mapped.append(burst())
finally:
    engine.terminate()
    engine.wait(timeout=10)
    shutil.rmtree(scratch)

def line(name, xs):
    xs = sorted(xs)
    print(f"  {name:<40} min {xs[0]:.1f} ms   median {statistics.median(xs):.1f} ms   max {xs[-1]:.1f} ms")

print(f"The window's 15 first requests ({rounds} rounds, {binary})")
line("just answered (pages mapped)", mapped)
line("after 3 s quiet (pages handed back)", handed_back)
PY
