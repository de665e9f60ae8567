#!/usr/bin/env bash
# Installs the official Node client (openai 6) into a project-owned folder (NODE_CLIENT, default
# .node-client, gitignored) for the default test run: tests/sandbox/test_get_code.py runs the Node.js
# snippet of "Get code" with it, as saved in a default npm project (CommonJS). The folder's package.json
# declares no "type", as `npm init -y` writes it. Idempotent: a second run checks in a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
folder=${NODE_CLIENT:-.node-client}
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: apt-get install nodejs npm" >&2; exit 1; }
mkdir -p "$folder"
cat > "$folder/package.json" <<'JSON'
{
  "name": "service-console-node-client",
  "private": true,
  "description": "The official Node client the Get code snippets are run with (tests/sandbox/test_get_code.py)",
  "dependencies": {
    "openai": "^6"
  }
}
JSON
cd "$folder"
[ -d node_modules/openai ] && [ -z "${NODE_CLIENT_REINSTALL:-}" ] && exit 0
npm install --no-audit --no-fund --loglevel=error
