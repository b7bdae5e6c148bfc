#!/usr/bin/env bash
# Obtains everything the integration tests run against, from package registries only:
# kube-apiserver, kube-scheduler, kube-controller-manager and etcd built from the Go module proxy,
# kwok and helm from the Go module proxy, moto in a Python venv from PyPI. Results are cached outside the
# clone, keyed by version, so a warm run only checks that the files exist.
# Prints the directory holding the binaries and the moto_server path as KEY=VALUE lines.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=versions.sh
. "$here/versions.sh"
mkdir -p "$KERF_CACHE_DIR"
exec 9>"$KERF_CACHE_DIR/.ensure.lock"
flock 9

log() { printf '[testenv] %s\n' "$*" >&2; }

apt_install() {
  if [ "$(id -u)" != 0 ]; then log "need root to apt-get install $*"; return 1; fi
  if [ ! -f "$KERF_CACHE_DIR/.apt-updated" ]; then apt-get update -qq >&2 && touch "$KERF_CACHE_DIR/.apt-updated"; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

ensure_tools() {
  command -v openssl >/dev/null || apt_install openssl
  command -v python3 >/dev/null || apt_install python3 python3-venv
  python3 -c 'import venv, ensurepip' 2>/dev/null || apt_install python3-venv
  command -v curl >/dev/null || apt_install curl
  command -v unzip >/dev/null || apt_install unzip
  # Lua 5.1 (the language version of gopher-lua, Argo CD's interpreter) runs the Argo CD health checks in tests.
  command -v lua5.1 >/dev/null || apt_install lua5.1
  # tmux drives `kerf top` in a terminal in test/integration/top-tmux.test.ts.
  command -v tmux >/dev/null || apt_install tmux
}

go_ok() { # true when $1 is a go binary of at least GO_MIN_VERSION
  local v; v=$("$1" env GOVERSION 2>/dev/null | sed 's/^go//') || return 1
  [ "$(printf '%s\n%s\n' "$GO_MIN_VERSION" "$v" | sort -V | head -n1)" = "$GO_MIN_VERSION" ]
}

# Finds a Go >= GO_MIN_VERSION; otherwise fetches the official toolchain module from the Go module
# proxy (the same artefact GOTOOLCHAIN switching downloads) into the cache.
ensure_go() {
  if command -v go >/dev/null && GOTOOLCHAIN=local go_ok go; then GO=$(command -v go); return; fi
  local dir="$KERF_CACHE_DIR/go-toolchain/go$GO_TOOLCHAIN_VERSION"
  if [ ! -x "$dir/bin/go" ]; then
    local arch; arch=$(uname -m); case "$arch" in x86_64) arch=amd64;; aarch64) arch=arm64;; esac
    local proxy=${GOPROXY:-https://proxy.golang.org}; proxy=${proxy%%,*}
    local zip="$KERF_CACHE_DIR/go-toolchain/tc.zip"
    mkdir -p "$KERF_CACHE_DIR/go-toolchain"
    log "fetching Go $GO_TOOLCHAIN_VERSION toolchain from the Go module proxy"
    curl -fsSL -o "$zip" "$proxy/golang.org/toolchain/@v/v0.0.1-go$GO_TOOLCHAIN_VERSION.linux-$arch.zip"
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && unzip -q "$zip" -d "$dir.tmp" && rm -f "$zip"
    mv "$dir.tmp/golang.org/toolchain@v0.0.1-go$GO_TOOLCHAIN_VERSION.linux-$arch" "$dir" && rm -rf "$dir.tmp"
    chmod +x "$dir"/bin/* "$dir"/pkg/tool/*/* 2>/dev/null || true
  fi
  GO="$dir/bin/go"
}

goenv() {
  export GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-modcacherw
  export GOMODCACHE=${GOMODCACHE:-$KERF_CACHE_DIR/go/mod} GOCACHE=${GOCACHE:-$KERF_CACHE_DIR/go/build}
}

build_kubernetes() {
  local out=$1 v="v$K8S_VERSION" minor; minor=$(echo "$K8S_VERSION" | cut -d. -f2)
  local src="$KERF_CACHE_DIR/src/k8s-$K8S_VERSION"
  mkdir -p "$src" && cd "$src"
  log "building kube-apiserver, kube-scheduler, kube-controller-manager $v (cold: several minutes)"
  cat > go.mod <<GOMOD
module example.local/kerf-k8s-test-bins

go 1.26.0

godebug default=go1.26

require k8s.io/kubernetes $v
GOMOD
  cat > tools.go <<'GOSRC'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
)
GOSRC
  local gomod
  gomod=$("$GO" mod download -json "k8s.io/kubernetes@$v" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  # Replace every staging module with its published tag; derived, never hard-coded (a release may add one).
  grep -E '^\s*k8s\.io/[^ ]+ => \./staging/' "$gomod" | awk '{print $1}' | sort -u | while read -r m; do
    "$GO" mod edit -replace="$m=$m@v0.$minor.${K8S_VERSION##*.}"
  done
  "$GO" mod tidy -e >&2
  local ldf="-s -w" d; d=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldf="$ldf -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean -X $p.buildDate=$d"
  done
  local tmp="$out.tmp"; mkdir -p "$tmp"
  "$GO" build -trimpath -tags=notest,grpcnotrace -ldflags "$ldf" -o "$tmp/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kube-controller-manager >&2
  for c in kube-apiserver kube-scheduler kube-controller-manager; do mv "$tmp/$c" "$out/$c"; done
  rmdir "$tmp"
}

build_etcd() {
  local out=$1 src="$KERF_CACHE_DIR/src/etcd-$ETCD_VERSION"
  mkdir -p "$src" && cd "$src"
  log "building etcd v$ETCD_VERSION"
  cat > go.mod <<GOMOD
module example.local/kerf-etcd-bin

go 1.26.0

require go.etcd.io/etcd/server/v3 v$ETCD_VERSION
GOMOD
  printf '//go:build tools\n\npackage tools\n\nimport _ "go.etcd.io/etcd/server/v3"\n' > tools.go
  "$GO" mod tidy -e >&2
  "$GO" build -trimpath -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=v$ETCD_VERSION" -o "$out/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
  mv "$out/etcd.tmp" "$out/etcd"
}

build_kwok() {
  local out=$1
  log "building kwok v$KWOK_VERSION"
  GOBIN="$out/kwok.d" "$GO" install "sigs.k8s.io/kwok/cmd/kwok@v$KWOK_VERSION" >&2
  # The standalone kwok binary has no built-in stages (kwokctl injects them); take the "fast"
  # node and pod stages from the same module release.
  local mod; mod=$("$GO" mod download -json "sigs.k8s.io/kwok@v$KWOK_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  : > "$out/stages.yaml.tmp"
  for f in "$mod"/kustomize/stage/node/fast/node-initialize.yaml "$mod"/kustomize/stage/pod/fast/pod-*.yaml; do
    printf -- '---\n' >> "$out/stages.yaml.tmp"; cat "$f" >> "$out/stages.yaml.tmp"
  done
  mv "$out/stages.yaml.tmp" "$out/stages.yaml"
  mv "$out/kwok.d/kwok" "$out/kwok" && rmdir "$out/kwok.d"
}

build_helm() {
  local out=$1
  log "building helm v$HELM_VERSION"
  # The version helm reports (`helm version`, the User-Agent) is set at link time, as helm's Makefile does.
  GOBIN="$out/helm.d" "$GO" install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=v$HELM_VERSION -X helm.sh/helm/v4/internal/version.gitTreeState=clean" \
    "helm.sh/helm/v4/cmd/helm@v$HELM_VERSION" >&2
  mv "$out/helm.d/helm" "$out/helm" && rmdir "$out/helm.d"
}

ensure_moto() {
  local pyv; pyv=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  MOTO_VENV="$KERF_CACHE_DIR/venv/moto-$MOTO_VERSION-py$pyv"
  # The stamp is written last, so an interrupted install is redone rather than trusted.
  if [ -f "$MOTO_VENV/.complete" ]; then return; fi
  log "installing moto[server]==$MOTO_VERSION into $MOTO_VENV"
  rm -rf "$MOTO_VENV"
  python3 -m venv "$MOTO_VENV"
  "$MOTO_VENV/bin/pip" install -q --disable-pip-version-check "moto[server]==$MOTO_VERSION" >&2
  touch "$MOTO_VENV/.complete"
}

main() {
  ensure_tools
  local started=$SECONDS
  ensure_moto &
  local moto_pid=$!
  local k8s_dir etcd_dir kwok_dir helm_dir
  if [ -n "${KUBEBUILDER_ASSETS:-}" ] && [ -x "$KUBEBUILDER_ASSETS/kube-apiserver" ] && [ -x "$KUBEBUILDER_ASSETS/etcd" ]; then
    log "using kube-apiserver and etcd from KUBEBUILDER_ASSETS=$KUBEBUILDER_ASSETS"
    APISERVER="$KUBEBUILDER_ASSETS/kube-apiserver"; ETCD="$KUBEBUILDER_ASSETS/etcd"
  fi
  ensure_go; goenv
  local gov; gov=$("$GO" env GOVERSION)
  k8s_dir="$KERF_CACHE_DIR/bin/k8s-v$K8S_VERSION-$gov"
  etcd_dir="$KERF_CACHE_DIR/bin/etcd-v$ETCD_VERSION-$gov"
  kwok_dir="$KERF_CACHE_DIR/bin/kwok-v$KWOK_VERSION-$gov"
  helm_dir="$KERF_CACHE_DIR/bin/helm-v$HELM_VERSION-$gov"
  mkdir -p "$k8s_dir" "$etcd_dir" "$kwok_dir" "$helm_dir"
  [ -x "$k8s_dir/kube-controller-manager" ] || (build_kubernetes "$k8s_dir")
  [ -x "$etcd_dir/etcd" ] || (build_etcd "$etcd_dir")
  [ -x "$kwok_dir/kwok" ] && [ -f "$kwok_dir/stages.yaml" ] || (build_kwok "$kwok_dir")
  [ -x "$helm_dir/helm" ] || (build_helm "$helm_dir")
  wait "$moto_pid"
  local pyv; pyv=$(python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  echo "KUBE_APISERVER=${APISERVER:-$k8s_dir/kube-apiserver}"
  echo "KUBE_SCHEDULER=$k8s_dir/kube-scheduler"
  echo "KUBE_CONTROLLER_MANAGER=$k8s_dir/kube-controller-manager"
  echo "ETCD=${ETCD:-$etcd_dir/etcd}"
  echo "KWOK=$kwok_dir/kwok"
  echo "KWOK_STAGES=$kwok_dir/stages.yaml"
  echo "HELM=$helm_dir/helm"
  echo "MOTO_SERVER=$KERF_CACHE_DIR/venv/moto-$MOTO_VERSION-py$pyv/bin/moto_server"
  log "test environment ready in $((SECONDS - started)) s"
}
main "$@"
