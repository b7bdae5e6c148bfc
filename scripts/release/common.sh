# Sourced by the release scripts: pinned inputs, the cache directory, logging and idempotent installs of the
# Debian tools the release needs (buildah, debootstrap, qemu-user-static), as .ci/testenv/ensure.sh installs its own.
# Expects $root (the checkout).
# shellcheck shell=bash
KERF_CACHE_DIR=${KERF_CACHE_DIR:-$HOME/.cache/kerf}
RELEASE_CACHE="$KERF_CACHE_DIR/release"
# The base image built from packages when no image registry is reachable: Debian's suite and the npm CLI that
# node:24-bookworm-slim ships beside Node (the Dockerfile's deps stage runs `npm ci`). Node itself is the version
# package.json pins (the npm `node` package), so kerf runs on the same Node in the image as in its tests.
DEBIAN_SUITE=${KERF_DEBIAN_SUITE:-bookworm}
DEBIAN_MIRROR=${KERF_DEBIAN_MIRROR:-http://deb.debian.org/debian}
NPM_CLI_VERSION=${KERF_NPM_CLI_VERSION:-11.21.2}
CYCLONEDX_NPM_VERSION=${KERF_CYCLONEDX_NPM_VERSION:-6.0.1}
IMAGE_REPO=${KERF_IMAGE_REPO:-ghcr.io/kerf-dev/kerf}
# buildah without a daemon: chroot isolation (no nested user namespaces or runc needed); RUN steps use the host's
# network, which is how the Dockerfile's `npm ci` and `apt-get install git` reach their registries.
export BUILDAH_ISOLATION=${BUILDAH_ISOLATION:-chroot}
mkdir -p "$RELEASE_CACHE"

log() { printf '[release] %s\n' "$*" >&2; }
die() { printf '[release] error: %s\n' "$*" >&2; exit 1; }

kerf_version() { sed -n 's/^  "version": "\([^"]*\)",$/\1/p' "$root/package.json" | head -n1; }
node_version() { sed -n 's/^    "node": "\([^"]*\)",$/\1/p' "$root/package.json" | head -n1; }

apt_install() {
  [ "$(id -u)" = 0 ] || die "need root to apt-get install $* (or install it yourself)"
  if [ ! -f "$KERF_CACHE_DIR/.apt-updated" ]; then apt-get update -qq >&2 && touch "$KERF_CACHE_DIR/.apt-updated"; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >&2
}

ensure_release_tools() {
  command -v buildah >/dev/null || { log "installing buildah (Debian package)"; apt_install buildah; }
  command -v debootstrap >/dev/null || { log "installing debootstrap (Debian package)"; apt_install debootstrap; }
  command -v curl >/dev/null || apt_install curl
}

# Docker arch name to the npm node-linux-* package's cpu and Debian's arch (the same names for these two).
node_cpu() { case "$1" in amd64) echo x64;; arm64) echo arm64;; *) die "unsupported arch $1 (amd64 or arm64)";; esac; }

# True when an image registry answers: then the Dockerfile's default base image is pulled as it is.
registry_reachable() { curl -sI -m 5 https://registry-1.docker.io/v2/ -o /dev/null; }
