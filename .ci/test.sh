#!/usr/bin/env bash
# `npm test`: installs what is missing (npm dependencies, Node 24, the Kubernetes/AWS test
# environment), then runs every unit and integration test. Safe to run on a fresh clone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tag=test
# shellcheck source=npm-deps.sh
. "$root/.ci/npm-deps.sh"
cd "$root"
exec node test/run.ts "$@"
