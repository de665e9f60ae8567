#!/usr/bin/env bash
# Makes the Open Responses compliance suite runnable for tests/sandbox/test_compliance_suite.py:
# OPENRESPONSES_REPO names a checkout of github.com/openresponses/openresponses (its code stays out of this
# repository); its tracked files are copied into COMPLIANCE_SUITE (default .compliance-suite, gitignored).
# The suite imports nothing but zod, so only zod (at the range the checkout's package.json names) and Bun
# (the runtime the suite is written for: its WebSocket tests set the Authorization header, which only Bun's
# WebSocket client accepts) are installed, in a folder of their own beside the copy: the site's own
# dependencies (Astro, React, Mermaid...) are not needed to run it. The copy is stamped with the checkout's
# commit: a second run for the same commit does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${OPENRESPONSES_REPO:?set OPENRESPONSES_REPO to a checkout of github.com/openresponses/openresponses}
folder=${COMPLIANCE_SUITE:-.compliance-suite}
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: apt-get install nodejs npm" >&2; exit 1; }
[ -f "$repo/bin/compliance-test.ts" ] || { echo "$repo has no bin/compliance-test.ts" >&2; exit 1; }
commit=$(git -C "$repo" rev-parse HEAD)
[ -f "$folder/.stamp" ] && [ "$(cat "$folder/.stamp")" = "$commit" ] && exit 0
rm -rf "$folder"
mkdir -p "$folder/.runner"
git -C "$repo" archive HEAD | tar -x -C "$folder"
cd "$folder"
zod=$(node -p 'require("./package.json").dependencies.zod')
cd .runner
echo '{"private": true}' > package.json
npm install --no-audit --no-fund --loglevel=error "zod@$zod" "bun@^1"
cd ..
ln -s .runner/node_modules node_modules
echo "$commit" > .stamp
