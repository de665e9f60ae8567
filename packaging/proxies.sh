#!/usr/bin/env bash
# Installs the real proxies the `proxies` tests meet (called by `dev.sh test-proxies`), then runs them:
#   - mitmproxy 11 into its own venv (PROXIES_VENV, default .proxies-venv; it pins versions of its own):
#     an intercepting proxy that re-signs TLS with its own CA, buffering whole answers by default;
#   - squid from Debian: a tunnelling (CONNECT) proxy with basic authentication (basic_ncsa_auth + htpasswd).
# Each test starts its own proxy on a free loopback port, with its configuration in a temporary folder.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${VENV:-.venv}
proxies_venv=${PROXIES_VENV:-.proxies-venv}
python=${PYTHON:-python3}
pip() { "$1" -m pip --disable-pip-version-check -q "${@:2}"; }

# apt_get (waits for the package lock), install_once (pip only when pyproject.toml changed)
source packaging/setup_steps.sh

if ! command -v squid >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  echo "Installing squid (Debian)"
  apt_get update -qq >/dev/null
  apt_get install -y -qq --no-install-recommends squid openssl >/dev/null
fi
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
install_once ".[test]"
[ -x "$proxies_venv/bin/python" ] || "$python" -m venv "$proxies_venv"
[ -x "$proxies_venv/bin/mitmdump" ] || pip "$proxies_venv/bin/python" install "mitmproxy==11.0.2"

export PROXIES_VENV="$proxies_venv" QT_QPA_PLATFORM=offscreen
exec "$venv/bin/python" -m pytest -m proxies tests/proxies tests/unit/test_benches.py "$@"
