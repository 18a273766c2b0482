#!/usr/bin/env bash
# Runs the command it is given inside a private D-Bus session with gnome-keyring's Secret
# Service running and its login keyring unlocked, so tests use a real keychain without ever
# touching yours. The keyring files and the daemon's sockets live in a scratch folder that is
# removed afterwards; the daemon goes away with the session. The command's exit code is kept.
#
#   bash tests/setup/with-keyring.sh cargo test -p sentient-e2e --test secrets
#
# Needs dbus-run-session (package dbus) and gnome-keyring-daemon (package gnome-keyring).
set -euo pipefail

if [ $# -eq 0 ]; then
  echo "usage: $0 COMMAND [ARG...]" >&2
  exit 2
fi

for tool in dbus-run-session gnome-keyring-daemon; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$0: $tool is missing. Install it with: sudo apt-get install -y dbus gnome-keyring" >&2
    exit 1
  fi
done

scratch="$(mktemp -d "${TMPDIR:-/tmp}/sentient-keyring.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
mkdir -m 700 "$scratch/data" "$scratch/run"

status=0
SENTIENT_KEYRING_SCRATCH="$scratch" dbus-run-session -- bash -c '
  set -euo pipefail
  # An empty password is taken as "no password" and makes the daemon ask for one on a
  # screen; any fixed password creates and unlocks the scratch login keyring without asking.
  # XDG_DATA_HOME keeps the keyring files, XDG_RUNTIME_DIR the control socket, out of $HOME.
  printf "sentient-tests" |
    XDG_DATA_HOME="$SENTIENT_KEYRING_SCRATCH/data" XDG_RUNTIME_DIR="$SENTIENT_KEYRING_SCRATCH/run" \
      gnome-keyring-daemon --unlock --components=secrets >/dev/null
  unset SENTIENT_KEYRING_SCRATCH
  exec "$@"
' _ "$@" || status=$?
exit "$status"
