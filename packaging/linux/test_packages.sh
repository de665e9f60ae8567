#!/usr/bin/env bash
# Tests the built Linux packages as a person installs them (root: dpkg -i; else the .tar.gz only):
#   bash packaging/linux/test_packages.sh
# 1. the .tar.gz unpacked in a temporary folder: its service-console --selftest (offscreen);
# 2. the .deb installed with dpkg -i: files in place, the desktop entry valid, the installed
#    `service-console --selftest` offscreen, and under Xvfb with the real xcb platform when Xvfb is there;
# 3. dpkg -r: nothing of the package left behind.
# Prints one JSON line per check; exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
VERSION=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')
ARCH=$(dpkg --print-architecture 2>/dev/null || uname -m)
DEB="dist/service-console_${VERSION}_${ARCH}.deb"
TARBALL="dist/service-console-$VERSION-linux-$ARCH.tar.gz"
[ -f "$DEB" ] && [ -f "$TARBALL" ] || { echo "build first: bash packaging/linux/build.sh" >&2; exit 2; }

selftest() {  # $1: the command; prints the selftest's JSON line, fails unless ok
  local home line
  home=$(mktemp -d)
  line=$(env -u PYTHONPATH -u VIRTUAL_ENV HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
    PYTHON_KEYRING_BACKEND=keyring.backends.fail.Keyring timeout 120 "$@" --selftest 2>/dev/null | tail -n 1)
  rm -rf "$home"
  echo "$line"
  python3 -c 'import json,sys; sys.exit(0 if json.loads(sys.argv[1]).get("ok") else 1)' "$line"
}

unpacked=$(mktemp -d)
trap 'rm -rf "$unpacked"' EXIT
tar -C "$unpacked" -xzf "$TARBALL"
echo "{\"check\": \"tar.gz selftest\", \"result\": $(QT_QPA_PLATFORM=offscreen selftest "$unpacked/service-console/service-console")}"

if [ "$(id -u)" -ne 0 ]; then
  echo '{"check": "deb", "result": "skipped: dpkg -i needs root"}'
  exit 0
fi
dpkg -r service-console >/dev/null 2>&1 || true
# The package's Depends (Qt's xcb libraries) come from apt when missing, as `apt install ./x.deb` would.
dpkg -i "$DEB" >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -f >/dev/null
dpkg -s service-console | grep -q "Status: install ok installed"
for path in /usr/bin/service-console /opt/service-console/service-console \
  /usr/share/applications/service-console.desktop /usr/share/icons/hicolor/512x512/apps/service-console.png; do
  [ -e "$path" ] || { echo "missing after install: $path" >&2; exit 1; }
done
if command -v desktop-file-validate >/dev/null; then desktop-file-validate /usr/share/applications/service-console.desktop; fi
[ "$(command -v service-console)" = /usr/bin/service-console ]
echo "{\"check\": \"deb selftest (offscreen)\", \"result\": $(QT_QPA_PLATFORM=offscreen selftest service-console)}"
if command -v Xvfb >/dev/null; then
  display=":$((RANDOM % 400 + 100))"
  Xvfb "$display" -screen 0 1280x800x24 -nolisten tcp >/dev/null 2>&1 &
  xvfb=$!
  sleep 1
  echo "{\"check\": \"deb selftest (xcb on Xvfb)\", \"result\": $(DISPLAY=$display QT_QPA_PLATFORM=xcb selftest service-console)}"
  kill "$xvfb"
fi
dpkg -r service-console >/dev/null
left=$(ls -d /opt/service-console /usr/bin/service-console /usr/share/applications/service-console.desktop \
  /usr/share/icons/hicolor/512x512/apps/service-console.png 2>/dev/null || true)
[ -z "$left" ] || { echo "left after dpkg -r: $left" >&2; exit 1; }
echo '{"check": "deb removed", "result": "nothing left"}'
