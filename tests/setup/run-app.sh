#!/usr/bin/env bash
# Runs Sentient: the desktop app, or with --headless (or on a machine without a display)
# `sentient serve`, whose printed web_url opens the same window in a browser. Installs what
# it needs first.
source "$(dirname "$0")/lib.sh"

headless=0
args=()
for arg in "$@"; do
  if [ "$arg" = "--headless" ]; then headless=1; else args+=("$arg"); fi
done
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "$(uname)" = "Linux" ]; then
  say "No display found: running headless. Open the web_url it prints in a browser."
  headless=1
fi

ensure_system_packages
ensure_node_packages
build_ui

if [ "$headless" = 1 ]; then
  say "Building and starting Sentient headless (sentient serve)"
  build_app --bin sentient
  exec "$CARGO_TARGET_DIR/debug/sentient" serve "${args[@]}"
fi
say "Building and starting the Sentient app"
build_app --bin sentient-desktop
exec "$CARGO_TARGET_DIR/debug/sentient-desktop" "${args[@]}"
