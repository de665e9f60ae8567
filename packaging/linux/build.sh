#!/usr/bin/env bash
# Builds the Linux packages here: the one-folder app (PyInstaller), a .deb and a .tar.gz, under dist/.
#   bash packaging/linux/build.sh            (README's one-liner; installs PyInstaller into .venv)
# Prints one JSON line of sizes at the end. The release workflow runs this same script.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
venv=${VENV:-.venv}
python=${PYTHON:-python3}
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
PY="$venv/bin/python"
# A venv that already has PyInstaller and the app's metadata is used as it is: reinstalling the app
# editable would repoint a venv shared with another checkout at this one.
"$PY" -c 'import importlib.metadata as m, PyInstaller; m.distribution("service-console")' 2>/dev/null \
  || "$PY" -m pip --disable-pip-version-check -q install -e ".[packaging]"

VERSION=$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')
ARCH=$(dpkg --print-architecture 2>/dev/null || uname -m)
WORK=build/pyinstaller
DIST=dist
rm -rf "$WORK" "$DIST/service-console"
mkdir -p "$WORK" "$DIST"

export SERVICE_CONSOLE_ICONS="$ROOT/$WORK/icons"
"$PY" packaging/icons/derive.py "$SERVICE_CONSOLE_ICONS" >/dev/null
"$PY" -m PyInstaller --noconfirm --log-level WARN --distpath "$DIST" --workpath "$WORK" packaging/service-console.spec

# .tar.gz: the folder as it is, with the desktop entry and icon beside it for a by-hand install.
FOLDER="$DIST/service-console"
cp packaging/linux/service-console.desktop resources/icon.png "$FOLDER/"
TARBALL="$DIST/service-console-$VERSION-linux-$ARCH.tar.gz"
tar -C "$DIST" -czf "$TARBALL" service-console

# .deb: the folder under /opt, a command on the PATH, a desktop entry and an icon.
DEBROOT="$WORK/deb"
rm -rf "$DEBROOT"
mkdir -p "$DEBROOT/DEBIAN" "$DEBROOT/opt" "$DEBROOT/usr/bin" "$DEBROOT/usr/share/applications" \
  "$DEBROOT/usr/share/icons/hicolor/512x512/apps"
cp -a "$FOLDER" "$DEBROOT/opt/service-console"
rm "$DEBROOT/opt/service-console/service-console.desktop" "$DEBROOT/opt/service-console/icon.png"
ln -s /opt/service-console/service-console "$DEBROOT/usr/bin/service-console"
cp packaging/linux/service-console.desktop "$DEBROOT/usr/share/applications/"
cp resources/icon.png "$DEBROOT/usr/share/icons/hicolor/512x512/apps/service-console.png"
# What Debian asks of every package (lintian): shared libraries not executable, the copyright and a
# changelog under /usr/share/doc; what lintian says of a bundle under /opt is answered in its overrides.
find "$DEBROOT/opt" -type f -name '*.so*' -exec chmod 0644 {} +
DOC="$DEBROOT/usr/share/doc/service-console"
mkdir -p "$DOC" "$DEBROOT/usr/share/lintian/overrides"
cp packaging/linux/copyright "$DOC/copyright"
CHANGED=$(git log -1 --format=%aD 2>/dev/null || date -R)
printf 'service-console (%s) unstable; urgency=medium\n\n  * Release %s (README.md says what it does).\n\n -- %s  %s\n' \
  "$VERSION" "$VERSION" "$(sed -n 's/^Maintainer: //p' packaging/linux/control.in)" "$CHANGED" | gzip -9n >"$DOC/changelog.gz"
cp packaging/linux/lintian-overrides "$DEBROOT/usr/share/lintian/overrides/service-console"
chmod -R u+rwX,go+rX,go-w "$DEBROOT/usr"
INSTALLED_KB=$(du -sk "$DEBROOT" | cut -f1)
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@SIZE@/$INSTALLED_KB/" \
  packaging/linux/control.in >"$DEBROOT/DEBIAN/control"
DEB="$DIST/service-console_${VERSION}_${ARCH}.deb"
# xz at level 9 with the root as owner of every file; dpkg-deb ships with dpkg on every Debian.
dpkg-deb --root-owner-group -Zxz -z9 --threads-max="$(nproc)" --build "$DEBROOT" "$DEB" >/dev/null

"$PY" - "$FOLDER" "$TARBALL" "$DEB" <<'EOF'
import json, os, sys
from pathlib import Path
folder, tarball, deb = map(Path, sys.argv[1:])
size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file() and not p.is_symlink())
mb = lambda n: round(n / 1e6, 1)
print(json.dumps({"folder_mb": mb(size), "tar_gz_mb": mb(tarball.stat().st_size), "deb_mb": mb(deb.stat().st_size),
                  "folder": str(folder), "tar_gz": str(tarball), "deb": str(deb)}))
EOF
