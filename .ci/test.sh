#!/usr/bin/env bash
# `npm test`: installs what is missing (npm dependencies, Node 24, the Kubernetes/AWS test
# environment), then runs every unit and integration test. Safe to run on a fresh clone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stamp=node_modules/.kerf-lock-hash
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -x node_modules/node/bin/node ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[test] installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
export PATH="$root/node_modules/.bin:$PATH"
exec node test/run.ts "$@"
