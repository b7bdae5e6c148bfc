#!/usr/bin/env bash
# Fetches Karpenter's own CRDs (NodePool, NodeClaim, EC2NodeClass) for a pinned release from the Go
# module proxy into the cache, for the parity tests that compare kerf with the real thing. Never
# committed. Prints the directory holding the three YAML files.
set -euo pipefail
version=${1:-${KERF_KARPENTER_VERSION:-1.14.1}}
cache=${KERF_CACHE_DIR:-$HOME/.cache/kerf}
out="$cache/crds/v$version"
if [ ! -f "$out/.complete" ]; then
  export GOFLAGS=-modcacherw GOMODCACHE=${GOMODCACHE:-$cache/go/mod} GOTOOLCHAIN=local
  dir=$(cd /tmp && go mod download -json "github.com/aws/karpenter-provider-aws@v$version" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  mkdir -p "$out"
  for f in karpenter.sh_nodepools.yaml karpenter.sh_nodeclaims.yaml karpenter.k8s.aws_ec2nodeclasses.yaml; do
    cp "$dir/pkg/apis/crds/$f" "$out/$f"
  done
  chmod 644 "$out"/*.yaml
  touch "$out/.complete"
fi
echo "$out"
