#!/usr/bin/env bash
# `npm start`: installs what is missing (npm dependencies, Node 24; the local Kubernetes/AWS
# environment is built on first use), then runs the local playground (test/playground/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
stamp=node_modules/.kerf-lock-hash
want=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -x node_modules/node/bin/node ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[start] installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$want" > "$stamp"
fi
export PATH="$root/node_modules/.bin:$PATH"
exec node test/playground/main.ts "$@"
