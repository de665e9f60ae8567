#!/usr/bin/env bash
# Installs the Node peers into a project-owned folder (NODE_PEERS, default .node-peers, gitignored):
#   - openai 6 (the official Node client), ai 6 + @ai-sdk/openai 3 (the Vercel AI SDK),
#   - @openai/codex (the Codex CLI; its npm package ships the native binary for this platform).
# The folder's package.json is written here, so the versions live in one place. Idempotent: an install
# that is already there is checked by npm in a few seconds. Called by peers.sh (and `dev.sh test-peers`).
set -euo pipefail
cd "$(dirname "$0")/.."
folder=${NODE_PEERS:-.node-peers}
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: apt-get install nodejs npm" >&2; exit 1; }
mkdir -p "$folder"
cat > "$folder/package.json" <<'JSON'
{
  "name": "service-console-node-peers",
  "private": true,
  "description": "The Node clients the sandbox is tested against (tests/peers); installed by packaging/node_peers.sh",
  "type": "module",
  "dependencies": {
    "openai": "^6",
    "ai": "^6",
    "@ai-sdk/openai": "^3",
    "@openai/codex": ">=0.169 <1",
    "zod": "^4"
  }
}
JSON
cd "$folder"
npm install --no-audit --no-fund --loglevel=error
