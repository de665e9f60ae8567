#!/usr/bin/env bash
# CI only (the release workflow): puts the Developer ID certificate from repository secrets into a
# temporary keychain that codesign can use, and stores a notarytool profile there. Does nothing, and says
# so, when no certificate is configured: build.sh then builds unsigned.
#   MACOS_CERTIFICATE_P12        the certificate and its key, exported as .p12, base64
#   MACOS_CERTIFICATE_PASSWORD   the .p12's password
#   MACOS_NOTARY_APPLE_ID, MACOS_NOTARY_TEAM_ID, MACOS_NOTARY_PASSWORD   (app-specific password), optional
set -euo pipefail
if [ -z "${MACOS_CERTIFICATE_P12:-}" ]; then
  echo "no signing certificate configured: the app and the .dmg will be unsigned"
  exit 0
fi
keychain="$RUNNER_TEMP/signing.keychain-db"
keychain_password=$(uuidgen)
certificate="$RUNNER_TEMP/certificate.p12"
security create-keychain -p "$keychain_password" "$keychain"
security set-keychain-settings -lut 21600 "$keychain"
security unlock-keychain -p "$keychain_password" "$keychain"
trap 'rm -f "$certificate"' EXIT
printf '%s' "$MACOS_CERTIFICATE_P12" | base64 --decode >"$certificate"
security import "$certificate" -k "$keychain" -P "$MACOS_CERTIFICATE_PASSWORD" -T /usr/bin/codesign
security set-key-partition-list -S apple-tool:,apple: -s -k "$keychain_password" "$keychain" >/dev/null
# shellcheck disable=SC2046  # the existing keychains, one word each
security list-keychains -d user -s "$keychain" $(security list-keychains -d user | tr -d '"')
echo "MACOS_SIGN_KEYCHAIN=$keychain" >>"$GITHUB_ENV"
if [ -n "${MACOS_NOTARY_APPLE_ID:-}" ]; then
  xcrun notarytool store-credentials service-console-notary --apple-id "$MACOS_NOTARY_APPLE_ID" \
    --team-id "$MACOS_NOTARY_TEAM_ID" --password "$MACOS_NOTARY_PASSWORD" --keychain "$keychain"
  echo "MACOS_NOTARY_PROFILE=service-console-notary" >>"$GITHUB_ENV"
fi
