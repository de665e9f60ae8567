#!/usr/bin/env bash
# macOS: "Service Console.app" (PyInstaller), its selftest, signing and notarization when an identity is
# configured, and a .dmg, under dist/.
#   bash packaging/macos/build.sh
# Signing runs only when these are set (the release workflow takes them from repository secrets):
#   MACOS_SIGN_IDENTITY   "Developer ID Application: Name (TEAMID)", in the login or a CI keychain
#   MACOS_NOTARY_PROFILE  a notarytool keychain profile (xcrun notarytool store-credentials …)
#   MACOS_SIGN_KEYCHAIN   optional: the keychain holding both (CI: made by ci_keychain.sh)
# Without them the app and the .dmg are built unsigned, and the script says so.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=${VENV:-.venv}
[ -x "$venv/bin/python" ] || "${PYTHON:-python3}" -m venv "$venv"
PY="$venv/bin/python"
"$PY" -m pip --disable-pip-version-check -q install -e ".[packaging]"
VERSION=$("$PY" -c 'import tomllib; print(tomllib.load(open("pyproject.toml","rb"))["project"]["version"])')
export SERVICE_CONSOLE_ICONS="$PWD/build/icons"
"$PY" packaging/icons/derive.py "$SERVICE_CONSOLE_ICONS" >/dev/null
rm -rf "dist/Service Console.app" dist/service-console
"$PY" -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/service-console.spec
APP="dist/Service Console.app"

QT_QPA_PLATFORM=offscreen "$APP/Contents/MacOS/service-console" --selftest | tail -n 1 | tee build/selftest.json
grep -q '"ok": true' build/selftest.json

if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
  keychain_option=()  # expanded with [@]+ below: macOS bash 3.2 calls an empty array unbound under set -u
  [ -z "${MACOS_SIGN_KEYCHAIN:-}" ] || keychain_option=(--keychain "$MACOS_SIGN_KEYCHAIN")
  codesign --force --deep --options runtime --timestamp ${keychain_option[@]+"${keychain_option[@]}"} --sign "$MACOS_SIGN_IDENTITY" "$APP"
  codesign --verify --strict --verbose=2 "$APP"
else
  echo "signing skipped: MACOS_SIGN_IDENTITY is not set (the app is unsigned; Gatekeeper will ask)"
fi

DMG="dist/service-console-$VERSION-macos-$(uname -m).dmg"
staging=$(mktemp -d)
cp -R "$APP" "$staging/"
ln -s /Applications "$staging/Applications"
rm -f "$DMG"
hdiutil create -volname "Service Console" -srcfolder "$staging" -ov -format UDZO "$DMG" >/dev/null
rm -rf "$staging"

if [ -n "${MACOS_SIGN_IDENTITY:-}" ]; then
  codesign --force --timestamp ${keychain_option[@]+"${keychain_option[@]}"} --sign "$MACOS_SIGN_IDENTITY" "$DMG"
  if [ -n "${MACOS_NOTARY_PROFILE:-}" ]; then
    xcrun notarytool submit "$DMG" --keychain-profile "$MACOS_NOTARY_PROFILE" ${keychain_option[@]+"${keychain_option[@]}"} --wait
    xcrun stapler staple "$DMG"
  else
    echo "notarization skipped: MACOS_NOTARY_PROFILE is not set"
  fi
fi
du -sh "$APP" "$DMG"
