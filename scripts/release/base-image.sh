#!/usr/bin/env bash
# Builds the Dockerfile's base image (NODE_IMAGE, normally node:24-bookworm-slim) from package registries, for when no
# image registry is reachable: a minbase Debian rootfs from Debian's packages (debootstrap) plus Node from the npm
# `node-linux-<cpu>` package (the version package.json pins) and the npm CLI from npm, imported with
# `buildah from scratch`. Cached in the local image store under a tag keyed by its inputs, so it is built once.
# Usage: scripts/release/base-image.sh [amd64|arm64]   Prints the image reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=common.sh
. "$root/scripts/release/common.sh"
arch=${1:-amd64}
cpu=$(node_cpu "$arch")
node=$(node_version)
[ -n "$node" ] || die "reading the node version from package.json dependencies: not found"
ensure_release_tools
# Keyed by what ends up in the image; BASE_LAYOUT counts changes to how this script assembles it (bump it then).
BASE_LAYOUT=1
key=$(printf '%s\n' "$DEBIAN_SUITE" "$DEBIAN_MIRROR" "$arch" "node $node" "npm $NPM_CLI_VERSION" "layout $BASE_LAYOUT" \
  | sha256sum | cut -c1-12)
ref="localhost/kerf-base/node:$node-$DEBIAN_SUITE-$arch-$key"
if buildah inspect --type image "$ref" >/dev/null 2>&1; then echo "$ref"; exit 0; fi

exec 9>"$RELEASE_CACHE/.base-$arch.lock"
flock 9
if buildah inspect --type image "$ref" >/dev/null 2>&1; then echo "$ref"; exit 0; fi
work="$RELEASE_CACHE/base-$key"
rm -rf "$work" && mkdir -p "$work"
log "building the base image $ref: Debian $DEBIAN_SUITE ($arch) + Node $node + npm $NPM_CLI_VERSION (cold: minutes)"
if [ "$arch" != "$(dpkg --print-architecture)" ]; then
  # Another arch's binaries (debootstrap's second stage, the Dockerfile's RUN steps) run under qemu-user-static,
  # registered with the kernel's binfmt_misc (needs root and a kernel that lets this container mount it).
  qemu=qemu-$( [ "$arch" = arm64 ] && echo aarch64 || echo x86_64)
  command -v "$qemu-static" >/dev/null || { log "installing qemu-user-static for $arch"; apt_install qemu-user-static binfmt-support; }
  mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc \
    || die "$arch needs binfmt_misc, which cannot be mounted here"
  [ -e "/proc/sys/fs/binfmt_misc/$qemu" ] || update-binfmts --enable "$qemu" >&2 || die "registering $qemu with binfmt_misc"
fi
debootstrap --variant=minbase --arch="$arch" "$DEBIAN_SUITE" "$work/rootfs" "$DEBIAN_MIRROR" >&2 \
  || die "debootstrap $DEBIAN_SUITE ($arch) failed (see the lines above)"
# As the slim image: no apt lists, caches or docs kept.
rm -rf "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/cache/apt/*.bin "$work"/rootfs/usr/share/doc/* \
  "$work"/rootfs/usr/share/man/*
(cd "$work" && npm pack --silent "node-linux-$cpu@$node" "npm@$NPM_CLI_VERSION" >/dev/null) \
  || die "fetching node-linux-$cpu@$node and npm@$NPM_CLI_VERSION from the npm registry"
mkdir -p "$work/node" "$work/rootfs/usr/local/bin" "$work/rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/node-linux-$cpu-$node.tgz" -C "$work/node"
install -m 0755 "$work/node/package/bin/node" "$work/rootfs/usr/local/bin/node"
tar -xzf "$work/npm-$NPM_CLI_VERSION.tgz" -C "$work/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
# /dev is the runtime's; device nodes debootstrap made would only get in the way of the import.
tar -C "$work/rootfs" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -cf "$work/rootfs.tar" .
ctr=$(buildah from --arch "$arch" scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah add "$ctr" "$work/rootfs.tar" / >/dev/null
buildah config --arch "$arch" --os linux --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$node" --cmd node \
  --label org.opencontainers.image.description="Debian $DEBIAN_SUITE minbase + Node $node (kerf's stand-in for node:24-bookworm-slim)" \
  "$ctr"
buildah commit --quiet "$ctr" "$ref" >/dev/null
rm -rf "$work"
echo "$ref"
