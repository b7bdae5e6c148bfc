#!/usr/bin/env bash
# Fetches Karpenter's own CRDs (NodePool, NodeClaim, EC2NodeClass) for a pinned release from the Go
# module proxy into the cache, for the parity tests that compare kerf with the real thing. Never
# committed. Prints the directory holding the three YAML files.
#
# The CRDs are read from the module zip, not the extracted module: `go mod download` verifies the zip
# against the checksum database, then refuses to extract a module whose go.mod asks for a newer Go than
# the local one (v1.15.1 wants go >= 1.26.10), leaving "Dir" out of its answer. The YAML needs no Go.
set -euo pipefail
version=${1:-${KERF_KARPENTER_VERSION:-1.14.1}}
version=${version#v}
cache=${KERF_CACHE_DIR:-$HOME/.cache/kerf}
out="$cache/crds/v$version"
module=github.com/aws/karpenter-provider-aws
if [ ! -f "$out/.complete" ]; then
  export GOFLAGS=-modcacherw GOMODCACHE=${GOMODCACHE:-$cache/go/mod} GOTOOLCHAIN=local
  info=$(cd /tmp && go mod download -json "$module@v$version" || true)
  zip=$(sed -n 's/.*"Zip": "\(.*\)".*/\1/p' <<<"$info")
  sum=$(sed -n 's/.*"Sum": "\(.*\)".*/\1/p' <<<"$info")
  if [ -z "$zip" ] || [ -z "$sum" ] || [ ! -f "$zip" ]; then
    echo "fetching $module@v$version: $(sed -n 's/.*"Error": "\(.*\)".*/\1/p' <<<"$info")" >&2
    exit 1
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for f in karpenter.sh_nodepools.yaml karpenter.sh_nodeclaims.yaml karpenter.k8s.aws_ec2nodeclasses.yaml; do
    unzip -p "$zip" "$module@v$version/pkg/apis/crds/$f" >"$tmp/$f"
    [ -s "$tmp/$f" ] || { echo "fetching $module@v$version: no pkg/apis/crds/$f in $zip" >&2; exit 1; }
  done
  mkdir -p "$out"
  chmod 644 "$tmp"/*.yaml
  mv "$tmp"/*.yaml "$out/"
  touch "$out/.complete"
fi
echo "$out"
