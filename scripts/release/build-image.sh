#!/usr/bin/env bash
# Builds kerf's image from the repository's Dockerfile, unchanged, with buildah (no Docker daemon). When no image
# registry is reachable the Dockerfile's NODE_IMAGE comes from base-image.sh (built from package registries).
# Cached by content: the image is tagged with a hash of everything the build reads (the Dockerfile, the files
# .dockerignore lets in, the base image), so a second run with the same sources only checks that the tag exists.
# Usage: scripts/release/build-image.sh [amd64|arm64]   Prints the image reference (localhost/kerf:<version>-<arch>-<key>).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=common.sh
. "$root/scripts/release/common.sh"
arch=${1:-amd64}
node_cpu "$arch" >/dev/null
version=$(kerf_version)
ensure_release_tools
if registry_reachable; then
  base=$(sed -n 's/^ARG NODE_IMAGE=//p' "$root/Dockerfile")
  base_id=$base pull=false
else
  log "no image registry reachable (registry-1.docker.io): using the base image built from packages"
  base=$(bash "$root/scripts/release/base-image.sh" "$arch")
  base_id=$(buildah inspect --type image --format '{{.FromImageID}}' "$base") pull=never
fi
# The build context as .dockerignore admits it: package.json, package-lock.json, policies/, webhook/, operator/ less
# tests and benches. Hashing the files themselves (not git's index) counts uncommitted edits.
context_hash=$(cd "$root" && find package.json package-lock.json policies webhook operator -type f \
    ! -name '*.test.ts' ! -name '*.bench.ts' ! -path '*/node_modules/*' -print0 | LC_ALL=C sort -z \
  | xargs -0 sha256sum | sha256sum | cut -c1-64)
key=$(printf '%s\n' "$context_hash" "$(sha256sum "$root/Dockerfile" "$root/.dockerignore")" "$base_id" "$arch" \
  | sha256sum | cut -c1-12)
ref="localhost/kerf:$version-$arch-$key"
if buildah inspect --type image "$ref" >/dev/null 2>&1; then echo "$ref"; exit 0; fi

exec 9>"$RELEASE_CACHE/.image-$arch.lock"
flock 9
if buildah inspect --type image "$ref" >/dev/null 2>&1; then echo "$ref"; exit 0; fi
log "building $ref from Dockerfile (NODE_IMAGE=$base)"
# Where the host reaches the npm registry through a TLS proxy with its own CA (npm's cafile), the Dockerfile's
# `npm ci` needs that CA too: bind-mounted for the build's RUN steps only (npm reads the global npmrc under its
# prefix), so neither the CA nor the setting ends up in the image.
mounts=()
# npm's global npmrc depends on which node runs it, so NODE_EXTRA_CA_CERTS (read by every Node) comes first.
cafile=${NODE_EXTRA_CA_CERTS:-$(npm config get cafile 2>/dev/null || true)}
if [ -n "$cafile" ] && [ "$cafile" != null ] && [ -f "$cafile" ]; then
  printf 'cafile=/run/kerf-build-ca.crt\n' > "$RELEASE_CACHE/build-npmrc"
  mounts=(--volume "$cafile:/run/kerf-build-ca.crt:ro" --volume "$RELEASE_CACHE/build-npmrc:/usr/local/etc/npmrc:ro")
fi
buildah bud "${mounts[@]}" --quiet --arch "$arch" --pull="$pull" --layers=false -f "$root/Dockerfile" \
  --build-arg NODE_IMAGE="$base" \
  --label org.opencontainers.image.version="$version" \
  --label org.opencontainers.image.source=https://github.com/kerf-dev/kerf \
  --label org.opencontainers.image.licenses=Apache-2.0 \
  -t "$ref" "$root" >&2 || die "buildah bud of $root/Dockerfile ($arch) failed (see the lines above)"
# Only the newest build per version and arch is kept: every source edit makes a new key (about 600 MB each).
buildah images --format '{{.Name}}:{{.Tag}}' | grep "^localhost/kerf:$version-$arch-" | grep -vx "$ref" \
  | xargs -r buildah rmi >/dev/null 2>&1 || true
echo "$ref"
