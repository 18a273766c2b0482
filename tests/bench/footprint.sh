#!/usr/bin/env bash
# The footprint budget (issue 33): the release `sentient serve` ready on an empty home and on one
# that exists, and its idle memory, printed beside the targets. Not part of the tests; figures
# depend on the machine, so run it on an idle one and write them in docs/benchmarks.md.
# Usage: npm run bench:footprint  (RUNS=15 SETTLE=5 bash tests/bench/footprint.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
export CARGO_TARGET_DIR="$TARGET"
RUNS="${RUNS:-15}"
if [ -z "${SENTIENT_BIN:-}" ]; then
  cargo build --release --locked -q -p sentient-engine --bin sentient
fi
BIN="${SENTIENT_BIN:-$TARGET/release/sentient}"

median_of() { awk '/ready line printed/ {for (i = 1; i <= NF; i++) if ($i == "median") print $(i + 1)}'; }
fresh=$(RUNS="$RUNS" bash tests/bench/startup.sh "$BIN" | median_of)
again=$(RUNS="$RUNS" SAME_HOME=1 bash tests/bench/startup.sh "$BIN" | median_of)
memory=$(ENGINE_ONLY=1 SETTLE="${SETTLE:-5}" SENTIENT_BIN="$BIN" bash tests/bench/idle-memory.sh)
pss=$(printf '%s\n' "$memory" | awk '/engine alone/ {for (i = 1; i <= NF; i++) if ($i == "PSS") print $(i + 1)}')
rss=$(printf '%s\n' "$memory" | awk '/engine alone/ {for (i = 1; i <= NF; i++) if ($i == "RSS") print $(i + 1)}')
used=$(printf '%s\n' "$memory" | awk '/first requests/ {for (i = 1; i <= NF; i++) if ($i == "PSS") print $(i + 1)}')
size_mb=$(awk "BEGIN {printf \"%.1f\", $(stat -c %s "$BIN") / 1048576}")

verdict() { awk "BEGIN {print ($1 < $2) ? \"within\" : \"OVER\"}"; }
echo "Footprint of $BIN ($(nproc) cores, $RUNS runs, medians; idle after ${SETTLE:-5} s)"
printf '  %-32s %8s   target < %-6s %s\n' "ready, empty home" "$fresh ms" "10 ms" "$(verdict "$fresh" 10)"
printf '  %-32s %8s   target < %-6s %s\n' "ready, existing home" "$again ms" "6 ms" "$(verdict "$again" 6)"
printf '  %-32s %8s   target < %-6s %s\n' "idle PSS" "$pss MB" "20 MB" "$(verdict "$pss" 20)"
printf '  %-32s %8s\n' "idle RSS" "$rss MB"
printf '  %-32s %8s\n' "idle PSS after the first requests" "$used MB"
printf '  %-32s %8s\n' "binary on disk" "$size_mb MB"
