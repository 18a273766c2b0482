#!/usr/bin/env bash
# Runs the secrets suite twice: against the real keychain (gnome-keyring in a private D-Bus
# session, see with-keyring.sh), then against the private key file with no Secret Service on
# the bus (every engine chooses the file first). Extra arguments go to the test binary.
#
#   bash tests/setup/secrets-both-stores.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

echo "== secrets against the keychain"
bash tests/setup/with-keyring.sh cargo test -p sentient-e2e --test engine secrets:: -- "$@"

echo "== secrets against the private key file (no Secret Service)"
env -u DBUS_SESSION_BUS_ADDRESS \
  DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent/sentient-e2e/bus \
  XDG_RUNTIME_DIR=/nonexistent/sentient-e2e \
  SENTIENT_E2E_SECRETS_STORE=file \
  cargo test -p sentient-e2e --test engine secrets:: -- "$@"
