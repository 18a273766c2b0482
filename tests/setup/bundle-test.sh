#!/usr/bin/env bash
# The installable package, checked without a release build: the debug app that the other
# tests already built is packaged as a .deb with Tauri's bundler (`tauri bundle --debug`
# packages what is built and compiles nothing; `tauri build` would turn on the
# tauri/custom-protocol feature and rebuild tauri and everything above it), installed into a
# scratch root with `dpkg-deb -x`, and the binary, the icons, the desktop entry and the
# package's name and description are checked. `npm run bundle` makes the real release
# packages (.deb and .rpm) from the same tauri.conf.json.
source "$(dirname "$0")/lib.sh"

APP="$CARGO_TARGET_DIR/debug/sentient-desktop"
if [ ! -x "$APP" ]; then
  say "Building the desktop app (debug)"
  build_app --bin sentient-desktop
fi

fail() {
  echo "bundle test: $*" >&2
  exit 1
}

started=$(date +%s.%N)
say "Packaging the debug app as a .deb (tauri bundle)"
BUNDLE_DIR="$CARGO_TARGET_DIR/debug/bundle/deb"
rm -f "$BUNDLE_DIR"/*.deb
# No binary patching: the app in target/debug is shared with the other tests and stays as built.
npx tauri bundle --debug --bundles deb --no-binary-patching --ci
DEB=$(ls "$BUNDLE_DIR"/*.deb 2>/dev/null | head -n1)
[ -n "$DEB" ] && [ -s "$DEB" ] || fail "no .deb under $BUNDLE_DIR"
# The same xz repack `npm run bundle` does, at a quick level: the checks below read the repacked one.
repack_deb_xz "$DEB" 0
members=$(ar t "$DEB")
case "$members" in *data.tar.xz*) ;; *) fail "the repacked .deb's contents are not xz-compressed: $members" ;; esac
dpkg-deb -c "$DEB" >/dev/null || fail "the repacked .deb does not read"

ROOT_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sentient-deb-XXXXXX")
trap 'rm -rf "$ROOT_DIR"' EXIT
dpkg-deb -x "$DEB" "$ROOT_DIR"

# The package: its name, version and a description a person can read in a software centre.
field() { dpkg-deb -f "$DEB" "$1"; }
[ "$(field Version)" = "0.1.0" ] || fail "version is '$(field Version)', expected 0.1.0"
[ -n "$(field Package)" ] || fail "the package has no name"
# Read whole before matching: `grep -q` stops at the first match and, under pipefail, the writer's
# SIGPIPE on the lines after it failed this check now and then.
description=$(field Description)
[[ "$description" == *"personal AI assistant"* ]] || fail "the description does not say what Sentient is"
# WebKitGTK for the window; the tray icon's library is loaded at run time, so it is named here.
depends=$(field Depends)
# bubblewrap contains the scripts the assistant writes.
for dep in libwebkit2gtk-4.1-0 libgtk-3-0 libayatana-appindicator3-1 bubblewrap; do
  [[ "$depends" == *"$dep"* ]] || fail "the package does not depend on $dep: $depends"
done

# The program, runnable from the menu and from a terminal.
BIN="$ROOT_DIR/usr/bin/sentient-desktop"
[ -x "$BIN" ] || fail "usr/bin/sentient-desktop is missing or not executable"
cmp -s "$BIN" "$APP" || fail "the packaged program is not the built app"

# The desktop entry: what a launcher shows and starts.
ENTRY=$(ls "$ROOT_DIR"/usr/share/applications/*.desktop 2>/dev/null | head -n1)
[ -n "$ENTRY" ] || fail "no desktop entry under usr/share/applications"
key() { sed -n "s/^$1=//p" "$ENTRY" | head -n1; }
[ "$(key Type)" = "Application" ] || fail "Type is '$(key Type)'"
[ "$(key Name)" = "Sentient" ] || fail "Name is '$(key Name)', expected Sentient"
[ "$(key Exec)" = "sentient-desktop" ] || fail "Exec is '$(key Exec)', expected sentient-desktop"
[ -n "$(key Comment)" ] || fail "the desktop entry has no Comment"
[ -n "$(key Categories)" ] || fail "the desktop entry has no Categories"
case "$(key Categories)" in *Office* | *Utility* | *Productivity*) ;; *) fail "Categories is '$(key Categories)'" ;; esac
if command -v desktop-file-validate >/dev/null 2>&1; then
  desktop-file-validate "$ENTRY" || fail "the desktop entry is not valid"
fi

# The icon the entry names, in the sizes launchers look for (icons/), and real PNGs.
ICON=$(key Icon)
[ -n "$ICON" ] || fail "the desktop entry names no Icon"
for size in 32x32 128x128 512x512; do
  file="$ROOT_DIR/usr/share/icons/hicolor/$size/apps/$ICON.png"
  [ -s "$file" ] || fail "icon $size/apps/$ICON.png is missing"
  head -c 8 "$file" | od -An -tx1 | tr -d ' \n' | grep -q '^89504e470d0a1a0a$' || fail "icon $size is not a PNG"
done

elapsed=$(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $started }")
echo "ok: $(basename "$DEB") ($(du -h "$DEB" | cut -f1)): program, desktop entry ($(key Name), $(key Categories)) and icon $ICON checked in ${elapsed} s"
