#!/usr/bin/env bash
# `npm start`: installs what is missing (npm dependencies, Node 24; the local Kubernetes/AWS
# environment is built on first use), then runs the local playground (test/playground/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tag=start
# shellcheck source=npm-deps.sh
. "$root/.ci/npm-deps.sh"
cd "$root"
exec node test/playground/main.ts "$@"
