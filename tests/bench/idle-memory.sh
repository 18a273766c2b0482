#!/usr/bin/env bash
# Idle memory after start: the whole desktop app (engine + webview processes) under Xvfb, and
# the engine alone (`sentient serve`). Reports PSS (shared pages split fairly) and RSS, read
# from /proc after SETTLE seconds (default 10). Bounded: one launch of each.
# ENGINE_ONLY=1 measures the engine alone; BREAKDOWN=1 also prints where the engine's pages are
# (from /proc/<pid>/smaps: the binary's own file pages, the heap and other anonymous memory,
# thread stacks, the database's mapping, shared libraries).
# Usage: npm run bench:memory
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
APP="${SENTIENT_DESKTOP_BIN:-$TARGET/debug/sentient-desktop}"
SERVE="${SENTIENT_BIN:-$TARGET/debug/sentient}"
SETTLE="${SETTLE:-10}"
# An empty Tauri window from the same Tauri and WebKitGTK (examples/empty_window.rs): the floor
# the whole app is compared with. Measured when built (cargo build --example empty_window).
FLOOR="${SENTIENT_FLOOR_BIN:-$TARGET/debug/examples/empty_window}"

# Sum PSS and RSS (kB) over a process and all its descendants.
tree_memory() {
  local pids=("$1") i=0
  while [ $i -lt ${#pids[@]} ]; do
    for child in $(cat /proc/"${pids[$i]}"/task/*/children 2>/dev/null); do pids+=("$child"); done
    i=$((i + 1))
  done
  local pss=0 rss=0 names=()
  for p in "${pids[@]}"; do
    [ -r "/proc/$p/smaps_rollup" ] || continue
    pss=$(( pss + $(awk '/^Pss:/ {print $2}' "/proc/$p/smaps_rollup") ))
    rss=$(( rss + $(awk '/^Rss:/ {print $2}' "/proc/$p/smaps_rollup") ))
    names+=("$(cat /proc/$p/comm)")
  done
  echo "$pss $rss ${names[*]}"
}

# Each process of a tree with its PSS in MB, as "name=MB" words.
tree_processes() {
  local pids=("$1") i=0 out=()
  while [ $i -lt ${#pids[@]} ]; do
    for child in $(cat /proc/"${pids[$i]}"/task/*/children 2>/dev/null); do pids+=("$child"); done
    i=$((i + 1))
  done
  for p in "${pids[@]}"; do
    [ -r "/proc/$p/smaps_rollup" ] || continue
    out+=("$(cat /proc/$p/comm)=$(awk '/^Pss:/ {printf "%.1f", $2 / 1024}' "/proc/$p/smaps_rollup")")
  done
  echo "${out[*]}"
}

# PSS by kind of mapping, in kB, largest first.
smaps_breakdown() {
  python3 - "$1" "$(readlink -f "$2")" <<'PY'
import re, sys
pid, binary = sys.argv[1], sys.argv[2]
kinds, current = {}, None
for line in open(f"/proc/{pid}/smaps"):
    head = re.match(r"^[0-9a-f]+-[0-9a-f]+ (\S+) \S+ \S+ \d+\s*(.*)$", line)
    if head:
        perms, path = head.groups()
        if path == binary:
            current = "binary, " + ("code" if "x" in perms else "data")
        elif path.endswith(".db") or path.endswith(".db-shm"):
            current = "database mapping"
        elif path == "[heap]":
            current = "heap (brk)"
        elif path.startswith("[stack"):
            current = "main stack"
        elif ".so" in path:
            current = "shared libraries"
        elif path == "":
            current = "anonymous (malloc arenas, thread stacks)"
        else:
            current = path
        continue
    if line.startswith("Pss:") and current:
        kinds[current] = kinds.get(current, 0) + int(line.split()[1])
for name, kb in sorted(kinds.items(), key=lambda kv: -kv[1]):
    if kb >= 64:
        print(f"    {kb / 1024:6.1f} MB  {name}")
PY
}

wait_health() {
  for _ in $(seq 1 300); do
    curl -sf --noproxy '*' "http://127.0.0.1:$1/api/health" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "no health answer on port $1" >&2; return 1
}

scratch="$(mktemp -d)"
cleanup() {
  kill $(jobs -p) 2>/dev/null || true
  [ -n "${bus_pid:-}" ] && kill "$bus_pid" 2>/dev/null || true
  # GTK may start the document portal, which mounts itself under the scratch home.
  fusermount -uz "$scratch/.cache/doc" 2>/dev/null || true
  rm -rf "$scratch"
}
trap cleanup EXIT

port=$(( 20000 + RANDOM % 20000 ))
"$SERVE" serve --home "$scratch/serve" --port "$port" --token bench >/dev/null 2>&1 &
serve_pid=$!
wait_health "$port"; sleep "$SETTLE"
read -r serve_pss serve_rss _ < <(tree_memory "$serve_pid")
[ "${BREAKDOWN:-}" = 1 ] && breakdown="$(smaps_breakdown "$serve_pid" "$SERVE")"
threads=$(ls /proc/"$serve_pid"/task | wc -l)
# Then what the window asks for when it opens, and the same wait: the engine idle after use
# (start-up's pages are handed back after start; the ones these answers need come back).
for path in / /api/bootstrap /api/config /api/config/schema /api/stop /api/sessions \
  /api/tasks /api/notifications /api/integrations /api/integrations/mcp /api/hooks /api/memories \
  /api/nodes /api/models/presets /api/secrets/store; do
  curl -sf --noproxy '*' -o /dev/null -H "Authorization: Bearer bench" "http://127.0.0.1:$port$path" ||
    echo "note: $path did not answer 200" >&2
done
sleep "$SETTLE"
read -r used_pss used_rss _ < <(tree_memory "$serve_pid")
[ "${BREAKDOWN:-}" = 1 ] && used_breakdown="$(smaps_breakdown "$serve_pid" "$SERVE")"
kill -TERM "$serve_pid"; wait "$serve_pid" || true
if [ "${ENGINE_ONLY:-}" = 1 ]; then
  echo "Idle memory ${SETTLE} s after start ($SERVE)"
  printf '  %-38s PSS %6.1f MB   RSS %6.1f MB   threads %d\n' "engine alone (sentient serve)" \
    "$(awk "BEGIN {print $serve_pss / 1024}")" "$(awk "BEGIN {print $serve_rss / 1024}")" "$threads"
  [ -n "${breakdown:-}" ] && printf '%s\n' "$breakdown"
  printf '  %-38s PSS %6.1f MB   RSS %6.1f MB\n' "engine after the window's first requests" \
    "$(awk "BEGIN {print $used_pss / 1024}")" "$(awk "BEGIN {print $used_rss / 1024}")"
  [ -n "${used_breakdown:-}" ] && printf '%s\n' "$used_breakdown"
  exit 0
fi

display=$(( 150 + RANDOM % 50 ))
Xvfb ":$display" -screen 0 1280x900x24 -nolisten tcp >/dev/null 2>&1 &
sleep 1
port=$(( 20000 + RANDOM % 20000 ))
# A private session bus, ended with the run.
bus_address_file="$scratch/bus"
dbus-daemon --session --nofork --print-address=1 >"$bus_address_file" 2>/dev/null &
bus_pid=$!
for _ in $(seq 1 50); do [ -s "$bus_address_file" ] && break; sleep 0.1; done
DBUS_SESSION_BUS_ADDRESS="$(head -1 "$bus_address_file")" DISPLAY=":$display" HOME="$scratch" \
  XDG_CONFIG_HOME="$scratch/config" SENTIENT_HOME="$scratch/app" SENTIENT_PORT="$port" SENTIENT_TOKEN=bench \
  WEBKIT_DISABLE_COMPOSITING_MODE=1 WEBKIT_DISABLE_DMABUF_RENDERER=1 "$APP" >/dev/null 2>&1 &
app_pid=$!
wait_health "$port"; sleep "$SETTLE"
read -r app_pss app_rss app_names < <(tree_memory "$app_pid")
app_each="$(tree_processes "$app_pid")"
kill -TERM "$app_pid" || true
wait "$app_pid" 2>/dev/null || true

if [ -x "$FLOOR" ]; then
  DBUS_SESSION_BUS_ADDRESS="$(head -1 "$bus_address_file")" DISPLAY=":$display" HOME="$scratch" \
    XDG_CONFIG_HOME="$scratch/config" WEBKIT_DISABLE_COMPOSITING_MODE=1 WEBKIT_DISABLE_DMABUF_RENDERER=1 \
    "$FLOOR" >/dev/null 2>&1 &
  floor_pid=$!
  # No health endpoint: wait until WebKit's web process has started, then settle as the app did.
  for _ in $(seq 1 100); do
    read -r _ _ floor_names < <(tree_memory "$floor_pid")
    case "$floor_names" in *WebKitWeb*) break ;; esac
    sleep 0.1
  done
  sleep "$SETTLE"
  read -r floor_pss floor_rss floor_names < <(tree_memory "$floor_pid")
  floor_each="$(tree_processes "$floor_pid")"
  kill -TERM "$floor_pid" || true
  wait "$floor_pid" 2>/dev/null || true
fi

echo "Idle memory ${SETTLE} s after start ($(basename "$SERVE"), $(basename "$APP"); debug build unless the paths say otherwise)"
printf '  %-38s PSS %6d MB   RSS %6d MB\n' "engine alone (sentient serve)" $((serve_pss / 1024)) $((serve_rss / 1024))
printf '  %-38s PSS %6d MB   RSS %6d MB\n' "whole app (engine + webview)" $((app_pss / 1024)) $((app_rss / 1024))
echo "  app processes (PSS MB each): $app_each"
if [ -n "${floor_pss:-}" ]; then
  printf '  %-38s PSS %6d MB   RSS %6d MB\n' "empty Tauri window (the floor)" $((floor_pss / 1024)) $((floor_rss / 1024))
  echo "  floor processes (PSS MB each): $floor_each"
  printf '  %-38s PSS %6d MB   (target: within 30 MB)\n' "whole app above the floor" $(((app_pss - floor_pss) / 1024))
fi
