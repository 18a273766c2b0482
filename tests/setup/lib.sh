# Shared by the two README commands: install what is missing, say exactly what to run when
# we cannot install it ourselves. Sourced, not run.

set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"

# Reuse a build folder outside the clone when there is one (much faster), never depend on it.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sentient-target}"
mkdir -p "$CARGO_TARGET_DIR"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

# Debian/Ubuntu packages the app, its tests and its native crates need.
SYSTEM_PACKAGES=(
  pkg-config build-essential cmake libclang-dev
  libwebkit2gtk-4.1-dev libgtk-3-dev libayatana-appindicator3-dev librsvg2-dev libxdo-dev
  libssl-dev libasound2-dev libdbus-1-dev
  xvfb xauth chromium gnome-keyring dbus dbus-x11 xdotool libsecret-tools imagemagick
  python3 python3-venv bubblewrap
  dovecot-imapd
)

ensure_system_packages() {
  local missing=()
  for pkg in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local cmd=(apt-get install -y --no-install-recommends "${missing[@]}")
  if [ "$(id -u)" -eq 0 ]; then
    say "Installing system packages: ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${cmd[@]}" -qq
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    say "Installing system packages with sudo: ${missing[*]}"
    sudo DEBIAN_FRONTEND=noninteractive apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive "${cmd[@]}" -qq
  else
    say "Some system packages are missing. Install them, then run this again:"
    echo "  sudo apt-get update && sudo ${cmd[*]}" >&2
    exit 1
  fi
}

ensure_node_packages() {
  local stamp="node_modules/.sentient-lock"
  if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
    say "Installing the window's npm packages"
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json "$stamp"
  fi
}

# PyPI tools the tests use, pinned, in the project's own virtual environment (.venv-tests/).
PYTHON_TOOLS=(schemathesis==4.32.5 aiosmtpd==1.4.6)

ensure_python_tools() {
  local venv=".venv-tests" stamp=".venv-tests/.sentient-tools"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${PYTHON_TOOLS[*]}" ]; then
    return 0
  fi
  say "Installing the tests' Python tools: ${PYTHON_TOOLS[*]}"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${PYTHON_TOOLS[@]}"
  echo "${PYTHON_TOOLS[*]}" > "$stamp"
}

# One package set for every build of the app: the README's run commands (`npm run app`,
# `npm run serve`) and the test command's build all resolve crate features for these packages
# together, so whichever ran first leaves the others nothing to compile (cargo picks a crate's
# features from the packages a command names; two different sets meant a second engine build,
# 4 min after `npm test`). The test servers are in it because the test harness links them.
APP_PACKAGES=(-p sentient-engine -p sentient-desktop -p sentient-model-server -p sentient-mcp-test-server)

# Builds the named binaries (`--bin X` or `--bins`) of the app's package set.
build_app() {
  cargo build --locked "${APP_PACKAGES[@]}" "$@"
}

build_ui() {
  say "Building the window"
  npm run --silent ui:build
}

# Tauri's bundler always gzips a .deb's contents; Debian's own dpkg-deb rebuilds it with xz, which
# takes the release package from about 31 MB to about 19 MB. $2 is xz's level (9 for the real
# package; a low level keeps the test command's check quick).
repack_deb_xz() {
  local deb="$1" level="${2:-9}" work
  work=$(mktemp -d "${TMPDIR:-/tmp}/sentient-repack-XXXXXX")
  dpkg-deb -R "$deb" "$work/root"
  dpkg-deb -Zxz -z"$level" --root-owner-group -b "$work/root" "$work/repacked.deb" >/dev/null
  mv "$work/repacked.deb" "$deb"
  rm -rf "$work"
}

# After the tests' builds, the README's two run commands must find their binaries built: a crate
# compiled here means some package set resolved features differently (a dependency's features
# added only for tests, say), and a newcomer's `npm run app` would rebuild the engine.
check_app_build_reused() {
  local bin out
  for bin in sentient sentient-desktop; do
    out=$(build_app --bin "$bin" 2>&1) || { echo "$out" >&2; return 1; }
    if grep -q '^ *Compiling ' <<<"$out"; then
      echo "$out" >&2
      echo "The build for '--bin $bin' compiled crates the test build had already built: the app's" \
        "package set (APP_PACKAGES in tests/setup/lib.sh) and the tests resolve features differently." >&2
      return 1
    fi
  done
}
