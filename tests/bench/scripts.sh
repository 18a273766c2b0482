#!/usr/bin/env bash
# What containment costs a script (issue 36). Two `sentient serve` engines on fresh homes: one that
# finds bubblewrap (scripts contained), one whose PATH lacks it (both with the system's python3) with `sandbox.allow_uncontained`
# (a plain process, as before containment). Alternating, RUNS each (default 30), medians:
#   - a one-line script, `POST /api/sandbox/run {"code": "print(1)"}` from the request to its answer
#     (an upper bound on call to first output: the answer comes after the output);
#   - one tool call through the script's bridge (`tools.files_list()`, a read), timed inside the
#     script over 50 calls.
# Loopback only; each engine is ended by pid.
# Usage: npm run bench:scripts  (or RUNS=50 bash tests/bench/scripts.sh [path/to/sentient])
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
BIN="${1:-$TARGET/debug/sentient}"
RUNS="${RUNS:-30}"
[ -x "$BIN" ] || { echo "Build it first: cargo build -p sentient-engine --bin sentient" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "bubblewrap is needed: sudo apt install bubblewrap" >&2; exit 1; }

python3 - "$BIN" "$RUNS" <<'PY'
import json, os, shutil, statistics, subprocess, sys, tempfile, time, urllib.request

binary, runs = sys.argv[1], int(sys.argv[2])
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

def start(path):
    home = os.path.join(tempfile.mkdtemp(), "h")
    env = dict(os.environ, PATH=path)
    engine = subprocess.Popen([binary, "serve", "--home", home, "--port", "0", "--token", "bench"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    url = json.loads(engine.stdout.readline())["url"]
    return engine, url

def call(url, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method,
                                     headers={"Authorization": "Bearer bench", "Content-Type": "application/json"})
    with opener.open(request, timeout=60) as answer:
        return json.loads(answer.read())

# The same Python for both (the system's, not a launcher like pyenv's), and bwrap for one only.
def path_with(*programs):
    folder = tempfile.mkdtemp()
    for program in programs:
        os.symlink(shutil.which(program, path="/usr/bin:/bin") or shutil.which(program), os.path.join(folder, program))
    return folder
engines = {"contained": start(path_with("python3", "bwrap")), "uncontained": start(path_with("python3"))}
call(engines["uncontained"][1], "PATCH", "/api/config", {"sandbox": {"allow_uncontained": True}})
for name, (_, url) in engines.items():
    status = call(url, "GET", "/api/sandbox/status")
    assert status["contained"] == (name == "contained"), status
    call(url, "POST", "/api/sandbox/run", {"code": "print(1)"})  # a first, uncounted run

BRIDGE = """
import time
times = []
for _ in range(50):
    t = time.perf_counter()
    tools.files_list()
    times.append((time.perf_counter() - t) * 1000)
times.sort()
result(times[len(times) // 2])
"""
one_line = {n: [] for n in engines}
bridge = {n: [] for n in engines}
try:
    for _ in range(runs):
        for name, (_, url) in engines.items():
            t = time.perf_counter()
            answer = call(url, "POST", "/api/sandbox/run", {"code": "print(1)"})
            one_line[name].append((time.perf_counter() - t) * 1000)
            assert answer["ok"] and answer["stdout"] == "1\n", answer
            answer = call(url, "POST", "/api/sandbox/run", {"code": BRIDGE})
            assert answer["ok"], answer
            bridge[name].append(answer["result"])
finally:
    for engine, _ in engines.values():
        engine.terminate()
        engine.wait(timeout=10)

cores = os.cpu_count()
print(f"{runs} runs each, alternating, {cores} cores, {binary}")
for name in engines:
    ol, br = one_line[name], bridge[name]
    print(f"{name:12} one-line script: median {statistics.median(ol):6.1f} ms (min {min(ol):.1f}, max {max(ol):.1f});"
          f" one bridge call: median {statistics.median(br):.2f} ms")
PY
