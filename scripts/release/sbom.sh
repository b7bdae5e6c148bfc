#!/usr/bin/env bash
# Writes a CycloneDX JSON SBOM of an image: the npm packages of its /app (cyclonedx-npm, run on the image's own
# node_modules) and its Debian packages (dpkg-query on the image's dpkg database, added by sbom.ts with the
# CycloneDX library). cyclonedx-npm is installed from npm once into the cache.
# Usage: scripts/release/sbom.sh IMAGE-REF OUT.json
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=common.sh
. "$root/scripts/release/common.sh"
ref=${1:?image reference}
out=${2:?output file}
tools="$RELEASE_CACHE/tools/cyclonedx-npm-$CYCLONEDX_NPM_VERSION"
if [ ! -x "$tools/node_modules/.bin/cyclonedx-npm" ]; then
  log "installing @cyclonedx/cyclonedx-npm@$CYCLONEDX_NPM_VERSION"
  mkdir -p "$tools"
  npm install --prefix "$tools" --no-audit --no-fund --loglevel=error "@cyclonedx/cyclonedx-npm@$CYCLONEDX_NPM_VERSION" >&2
fi
ctr=$(buildah from --pull=never "$ref")
trap 'buildah umount "$ctr" >/dev/null 2>&1 || true; buildah rm "$ctr" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
tmp=$(mktemp -d)
mnt=$(buildah mount "$ctr")
# The image's node_modules lacks the `node` package on purpose (the Dockerfile removes it): npm ls reports it
# missing, which is not an error of the SBOM.
"$tools/node_modules/.bin/cyclonedx-npm" --ignore-npm-errors --omit dev --output-format JSON --spec-version 1.6 \
  --output-file "$tmp/npm.cdx.json" "$mnt/app/package.json" 2> "$tmp/cyclonedx.log" \
  || { cat "$tmp/cyclonedx.log" >&2; die "cyclonedx-npm on $ref:/app failed"; }
dpkg-query --admindir="$mnt/var/lib/dpkg" -W -f '${Package}\t${Version}\t${Architecture}\t${source:Package}\n' \
  > "$tmp/dpkg.tsv"
node "$root/scripts/release/sbom.ts" "$tools/node_modules" "$tmp/npm.cdx.json" "$tmp/dpkg.tsv" "$out"
