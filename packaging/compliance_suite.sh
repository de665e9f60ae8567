#!/usr/bin/env bash
# Makes the Open Responses compliance suite runnable for tests/sandbox/test_compliance_suite.py:
# OPENRESPONSES_REPO names a checkout of github.com/openresponses/openresponses (its code stays out of this
# repository); its tracked files are copied into COMPLIANCE_SUITE (default .compliance-suite, gitignored),
# then its own npm dependencies and tsx (to run bin/compliance-test.ts with Node) are installed there. The
# folder is stamped with the checkout's commit: a second run for the same commit does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=${OPENRESPONSES_REPO:?set OPENRESPONSES_REPO to a checkout of github.com/openresponses/openresponses}
folder=${COMPLIANCE_SUITE:-.compliance-suite}
command -v npm >/dev/null 2>&1 || { echo "npm is not installed: apt-get install nodejs npm" >&2; exit 1; }
[ -f "$repo/bin/compliance-test.ts" ] || { echo "$repo has no bin/compliance-test.ts" >&2; exit 1; }
commit=$(git -C "$repo" rev-parse HEAD)
[ -f "$folder/.stamp" ] && [ "$(cat "$folder/.stamp")" = "$commit" ] && exit 0
rm -rf "$folder"
mkdir -p "$folder"
git -C "$repo" archive HEAD | tar -x -C "$folder"
cd "$folder"
npm install --no-audit --no-fund --loglevel=error
npm install --no-save --no-audit --no-fund --loglevel=error "tsx@^4"
echo "$commit" > .stamp
