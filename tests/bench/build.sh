#!/usr/bin/env bash
# How long the `sentient` binary takes to rebuild after touching one file, with a warm build folder:
# the task executor, the gateway, the Ollama wire format and an app (the weather built-in's Open-Meteo
# provider). Each is touched and rebuilt RUNS times (default 3); the median is reported. With --cold it
# also times a build from an empty build folder.
# Usage: npm run bench:build  (or RUNS=5 bash tests/bench/build.sh [--cold])
# Works before and after the engine was split into crates: the files are found by name.
set -euo pipefail
cd "$(dirname "$0")/../.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
RUNS="${RUNS:-3}"
BUILD=(cargo build --locked -q -p sentient-engine --bin sentient)

# The first file under src-tauri/ whose path ends with $1.
find_file() {
  local found
  found=$(find src-tauri -path "*/target" -prune -o -type f -path "*$1" -print | sort | head -n 1)
  [ -n "$found" ] || { echo "no file ending in $1 under src-tauri/" >&2; exit 1; }
  printf '%s\n' "$found"
}

seconds() { # runs "$@" and prints its wall time in seconds with one decimal
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.1f", ns / 1e9 }'
}

median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

echo "commit $(git rev-parse --short HEAD), $(nproc) cores, $(date -u +%F)"
if [ "${1:-}" = "--cold" ]; then
  cold_dir="$(mktemp -d)"
  cold=$(CARGO_TARGET_DIR="$cold_dir" seconds "${BUILD[@]}") # a failed build stops the script
  echo "cold build of sentient: $cold s"
  rm -rf "$cold_dir"
fi

"${BUILD[@]}" # warm up
for what in "executor:/executor.rs" "gateway:/src/gateway.rs" "ollama format:formats/ollama.rs" \
  "an app:builtins/weather/open_meteo.rs"; do
  name=${what%%:*}
  file=$(find_file "${what#*:}")
  times=()
  for _ in $(seq 1 "$RUNS"); do
    touch "$file"
    took=$(seconds "${BUILD[@]}")
    times+=("$took")
  done
  echo "touch $file ($name): median $(median "${times[@]}") s of ${times[*]}"
done
