#!/usr/bin/env bash
# Runs every test: formatting, lints, Rust unit/integration/end-to-end tests, the window's
# unit tests and the browser tests. Installs what it needs first.
source "$(dirname "$0")/lib.sh"

ensure_system_packages
ensure_node_packages
ensure_python_tools
build_ui

say "Checking formatting"
cargo fmt --all --check

say "Linting (clippy, warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

# The binaries come first: a Rust test kills and restarts a real `sentient serve`.
say "Building the app, the headless engine, the scripted model server and the MCP test server"
build_app --bins

say "Rust tests (secrets against gnome-keyring in a private D-Bus session)"
SENTIENT_BIN="$CARGO_TARGET_DIR/debug/sentient" bash tests/setup/with-keyring.sh cargo test --workspace --locked

say "The secrets suite again, against the private key file with no Secret Service on the bus"
SENTIENT_E2E_SECRETS_STORE=file DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/sentient-e2e/bus \
  XDG_RUNTIME_DIR=/nonexistent/sentient-e2e cargo test -p sentient-e2e --test engine --locked secrets::

say "The README's run commands reuse this build (nothing left to compile)"
check_app_build_reused

say "Schema-driven fuzzing of the HTTP API (schemathesis against sentient serve)"
SENTIENT_BIN="$CARGO_TARGET_DIR/debug/sentient" bash tests/setup/with-keyring.sh bash tests/fuzz/openapi.sh

say "Window unit tests"
npm run --silent ui:test

say "Browser tests (Chromium against sentient serve)"
SENTIENT_BIN="$CARGO_TARGET_DIR/debug/sentient" npm run --silent e2e

say "Desktop smoke test (the app under Xvfb)"
SENTIENT_DESKTOP_BIN="$CARGO_TARGET_DIR/debug/sentient-desktop" npm run --silent desktop:smoke

say "The installable package (the debug app as a .deb, unpacked and checked)"
bash tests/setup/bundle-test.sh

say "All tests passed"
