#!/usr/bin/env bash
# Builds promtool (Prometheus' rule and query checker) from the Go module proxy, once, into the cache; prints
# PROMTOOL=<path>. Separate from ensure.sh: only the chart's observability test needs it, so a test run that does not
# check the rules never pays for the build (cold: about 10 minutes on two busy cores, then a file-exists check).
# Uses the Go that ensure.sh found or fetched (run ensure.sh first).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.sh
. "$here/versions.sh"
mkdir -p "$KERF_CACHE_DIR"
exec 9>"$KERF_CACHE_DIR/.promtool.lock"
flock 9

go_bin() {
  local candidate
  for candidate in "$(command -v go || true)" "$KERF_CACHE_DIR/go-toolchain/go$GO_TOOLCHAIN_VERSION/bin/go"; do
    [ -n "$candidate" ] && [ -x "$candidate" ] || continue
    local v; v=$(GOTOOLCHAIN=local "$candidate" env GOVERSION 2>/dev/null | sed 's/^go//') || continue
    if [ "$(printf '%s\n%s\n' "$GO_MIN_VERSION" "$v" | sort -V | head -n1)" = "$GO_MIN_VERSION" ]; then echo "$candidate"; return; fi
  done
  echo "promtool.sh: no Go >= $GO_MIN_VERSION (run .ci/testenv/ensure.sh first)" >&2
  return 1
}

GO=$(go_bin)
export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-modcacherw
export GOMODCACHE=${GOMODCACHE:-$KERF_CACHE_DIR/go/mod} GOCACHE=${GOCACHE:-$KERF_CACHE_DIR/go/build}
gov=$("$GO" env GOVERSION)
dir="$KERF_CACHE_DIR/bin/promtool-v$PROMETHEUS_MODULE_VERSION-$gov"
if [ ! -x "$dir/promtool" ]; then
  printf '[testenv] building promtool (github.com/prometheus/prometheus v%s)\n' "$PROMETHEUS_MODULE_VERSION" >&2
  mkdir -p "$dir"
  GOBIN="$dir/promtool.d" "$GO" install -trimpath -ldflags "-s -w" \
    "github.com/prometheus/prometheus/cmd/promtool@v$PROMETHEUS_MODULE_VERSION" >&2
  mv "$dir/promtool.d/promtool" "$dir/promtool" && rmdir "$dir/promtool.d"
fi
echo "PROMTOOL=$dir/promtool"
