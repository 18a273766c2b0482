#!/usr/bin/env bash
# Schema-driven fuzzing: schemathesis sends requests made from our own OpenAPI document to a real
# `sentient serve` on loopback (with the token) and fails on any 5xx, any status the document does
# not list, and any answer that does not match its documented schema. Every operation runs except
# the model download, saving settings, adding tool servers and connecting apps
# (tests/fuzz/schemathesis.toml says why); it prints how many ran and fails when fewer did
# (tests/fuzz/coverage.py). Bounded by FUZZ_EXAMPLES per operation and FUZZ_SECONDS in all.
# Run it inside the test keychain (tests/setup/with-keyring.sh), as the test command does, so the
# secrets routes reach a real Secret Service.
#
#   SENTIENT_BIN=... FUZZ_SECONDS=180 bash tests/fuzz/openapi.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
TARGET="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
BIN="${SENTIENT_BIN:-$TARGET/debug/sentient}"
ST="${SCHEMATHESIS:-.venv-tests/bin/st}"
EXAMPLES="${FUZZ_EXAMPLES:-25}"
SECONDS_BUDGET="${FUZZ_SECONDS:-180}"
[ -x "$BIN" ] || { echo "No engine at $BIN. Build it: cargo build -p sentient-engine --bin sentient" >&2; exit 1; }
[ -x "$ST" ] || { echo "No schemathesis at $ST. The test command installs it (tests/setup/lib.sh)." >&2; exit 1; }

scratch="$(mktemp -d "${TMPDIR:-/tmp}/sentient-fuzz.XXXXXX")"
engine_pid=""
cleanup() {
  [ -n "$engine_pid" ] && kill -TERM "$engine_pid" 2>/dev/null && wait "$engine_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT

# Every model provider points at a loopback port nothing listens on: the fuzzer's requests never
# reach a model on this machine (a developer's Ollama on 11434) or the internet.
closed_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
mkdir -p "$scratch/home"
{
  echo "models:"
  # Model calls fail at once (nothing listens) and do not queue behind each other.
  echo "  local_queue: false"
  echo "  providers:"
  for p in ollama ollama_chat lm_studio openai anthropic openrouter nous vllm gemini groq mistral deepseek xai; do
    echo "    $p:"
    echo "      api_base: http://127.0.0.1:$closed_port"
  done
} > "$scratch/home/config.yaml"

token="fuzz-$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
SENTIENT_UI_DIR="$scratch/no-ui" "$BIN" serve --home "$scratch/home" --port 0 --token "$token" \
  > "$scratch/ready" 2> "$scratch/engine.log" &
engine_pid=$!
for _ in $(seq 1 300); do
  [ -s "$scratch/ready" ] && break
  sleep 0.1
done
url=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["url"])' "$scratch/ready")
curl -sf --noproxy '*' -H "Authorization: Bearer $token" "$url/api/openapi.json" > "$scratch/openapi.json"

status=0
# Run inside the scratch folder: schemathesis keeps its cache (`.schemathesis/`) in the folder it
# runs in, and the checkout must stay as it was (generation is deterministic, so the cache adds
# nothing between runs).
config="$PWD/tests/fuzz/schemathesis.toml"
ST="$(cd "$(dirname "$ST")" && pwd)/$(basename "$ST")"
(cd "$scratch" && "$ST" --config-file "$config" run "$scratch/openapi.json" \
  --url "$url" \
  --header "Authorization: Bearer $token" \
  --checks not_a_server_error,status_code_conformance,response_schema_conformance \
  --max-examples "$EXAMPLES" \
  --max-time "$SECONDS_BUDGET" \
  --request-timeout 60 \
  --generation-deterministic \
  --report json --report-json-path "$scratch/report.json" \
  --no-color) || status=$?
# How many operations ran against how many should have; fails the step when some never ran.
if [ -s "$scratch/report.json" ]; then
  "$(dirname "$ST")/python3" tests/fuzz/coverage.py "$scratch/openapi.json" "$config" "$scratch/report.json" || status=1
else
  echo "schemathesis wrote no report, so the operations that ran can't be counted." >&2
  status=1
fi
if [ "$status" -ne 0 ]; then
  echo "The engine's log around the run:" >&2
  tail -n 40 "$scratch/engine.log" >&2
fi
exit "$status"
