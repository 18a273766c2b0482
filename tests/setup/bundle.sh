#!/usr/bin/env bash
# `npm run bundle`: the installable packages (.deb and .rpm) with Tauri's bundler, from a
# release build, with the app's icon, name, description and desktop entry (tauri.conf.json
# "bundle"). No AppImage: its tools would be downloaded. Installs what it needs first.
source "$(dirname "$0")/lib.sh"

ensure_system_packages
ensure_node_packages

say "Building the release app and its packages (this takes a while)"
# tauri build runs the window's build first (beforeBuildCommand) and turns on custom-protocol.
npx tauri build --bundles deb,rpm --ci "$@"

BUNDLES="$CARGO_TARGET_DIR/release/bundle"
say "Compressing the .deb with xz"
for deb in "$BUNDLES"/deb/*.deb; do
  repack_deb_xz "$deb" 9
done
say "Packages"
for pkg in "$BUNDLES"/deb/*.deb "$BUNDLES"/rpm/*.rpm; do
  [ -f "$pkg" ] && printf '  %s (%s)\n' "$pkg" "$(du -h "$pkg" | cut -f1)"
done
echo "Install with: sudo apt install $(ls "$BUNDLES"/deb/*.deb | head -n1)"
