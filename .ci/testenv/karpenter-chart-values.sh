#!/usr/bin/env bash
# Fetches Karpenter's own Helm chart values (charts/karpenter/values.yaml) of a pinned release from the Go module
# proxy into the cache, for the chart tests that map every Karpenter value to kerf's. Never committed. Prints the
# file's path. Read from the module zip (checksum-verified by `go mod download`), as .ci/crds/fetch-upstream-crds.sh
# does: Go refuses to extract a module whose go.mod asks for a newer Go than the local one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.sh
. "$here/versions.sh"
# The Go ensure.sh finds, else the toolchain it fetched into the cache.
command -v go >/dev/null || PATH="$KERF_CACHE_DIR/go-toolchain/go$GO_TOOLCHAIN_VERSION/bin:$PATH"
command -v go >/dev/null || { echo "karpenter-chart-values.sh: no go on PATH (run .ci/testenv/ensure.sh first)" >&2; exit 1; }
version=${1:-1.15.1}
version=${version#v}
cache=$KERF_CACHE_DIR
out="$cache/karpenter-chart/v$version"
module=github.com/aws/karpenter-provider-aws
if [ ! -f "$out/.complete" ]; then
  export GOFLAGS=-modcacherw GOMODCACHE=${GOMODCACHE:-$cache/go/mod} GOTOOLCHAIN=local
  info=$(cd /tmp && go mod download -json "$module@v$version" || true)
  zip=$(sed -n 's/.*"Zip": "\(.*\)".*/\1/p' <<<"$info")
  if [ -z "$zip" ] || [ ! -f "$zip" ]; then
    echo "fetching $module@v$version: $(sed -n 's/.*"Error": "\(.*\)".*/\1/p' <<<"$info")" >&2
    exit 1
  fi
  mkdir -p "$out"
  unzip -p "$zip" "$module@v$version/charts/karpenter/values.yaml" >"$out/values.yaml.tmp"
  [ -s "$out/values.yaml.tmp" ] || { echo "fetching $module@v$version: no charts/karpenter/values.yaml in $zip" >&2; exit 1; }
  mv "$out/values.yaml.tmp" "$out/values.yaml"
  touch "$out/.complete"
fi
echo "$out/values.yaml"
