#!/usr/bin/env bash
# `npm run release`: builds release vX.Y.Z (X.Y.Z = package.json's version) into dist/release/vX.Y.Z/:
#   kerf-X.Y.Z-linux-<arch>.oci.tar   the image from the Dockerfile (buildah, no daemon), tagged ghcr.io/kerf-dev/kerf:X.Y.Z
#   kerf-X.Y.Z-linux-<arch>.cdx.json  CycloneDX SBOM of the image: its npm packages (cyclonedx-npm) and Debian packages
#   kerf-X.Y.Z.tgz, kerf-crd-X.Y.Z.tgz  `helm package` of manifests/charts/kerf and manifests/charts/kerf-crd
#   SHA256SUMS
# The version has one source: package.json. The charts' version and appVersion must equal it (checked here and by
# test/integration/chart.test.ts); `kerf --version` prints it; the git tag is vX.Y.Z.
# Options: --arch amd64|arm64 (repeatable; default amd64), --tag (create the annotated git tag vX.Y.Z after a
# successful build; refuses when it exists or the tree has uncommitted changes), --push REGISTRY-REF (push the image).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=common.sh
. "$root/scripts/release/common.sh"
archs=() tag=false push=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) archs+=("${2:?--arch needs amd64 or arm64}"); shift 2;;
    --tag) tag=true; shift;;
    --push) push=${2:?--push needs an image reference}; shift 2;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0;;
    *) die "unknown option $1 (see --help)";;
  esac
done
[ ${#archs[@]} -gt 0 ] || archs=(amd64)
version=$(kerf_version)
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || die "package.json version '$version' is not semver X.Y.Z"
for chart in kerf kerf-crd; do
  for field in version appVersion; do
    got=$(sed -n "s/^$field: *\"\{0,1\}\([^\"]*\)\"\{0,1\}$/\1/p" "$root/manifests/charts/$chart/Chart.yaml")
    [ "$got" = "$version" ] || die "manifests/charts/$chart/Chart.yaml: $field is '$got', package.json's version is $version"
  done
done
grep -q "^## \[$version\]" "$root/CHANGELOG.md" || die "CHANGELOG.md: no '## [$version]' section"
if $tag; then
  git -C "$root" rev-parse -q --verify "refs/tags/v$version" >/dev/null && die "git tag v$version exists already"
  [ -z "$(git -C "$root" status --porcelain --untracked-files=no)" ] || die "--tag: the work tree has uncommitted changes"
fi

out="$root/dist/release/v$version"
rm -rf "$out" && mkdir -p "$out"
helm=$(bash "$root/.ci/testenv/ensure.sh" | sed -n 's/^HELM=//p')
[ -x "$helm" ] || die "helm not found (from .ci/testenv/ensure.sh)"
for chart in kerf-crd kerf; do
  "$helm" package "$root/manifests/charts/$chart" --destination "$out" >&2 || die "helm package manifests/charts/$chart"
done

# The version's tag names one image (one arch) or a manifest list (several): drop what an earlier run left under it.
buildah rmi "$IMAGE_REPO:$version" >/dev/null 2>&1 || true
for arch in "${archs[@]}"; do
  ref=$(bash "$root/scripts/release/build-image.sh" "$arch")
  buildah tag "$ref" "$IMAGE_REPO:$version-$arch"
  [ ${#archs[@]} -gt 1 ] || buildah tag "$ref" "$IMAGE_REPO:$version"
  log "writing kerf-$version-linux-$arch.oci.tar and its SBOM"
  buildah push --quiet "$ref" "oci-archive:$out/kerf-$version-linux-$arch.oci.tar:$IMAGE_REPO:$version" >&2
  bash "$root/scripts/release/sbom.sh" "$ref" "$out/kerf-$version-linux-$arch.cdx.json"
done
if [ ${#archs[@]} -gt 1 ]; then
  buildah manifest create "$IMAGE_REPO:$version" >/dev/null
  for arch in "${archs[@]}"; do buildah manifest add "$IMAGE_REPO:$version" "$IMAGE_REPO:$version-$arch" >/dev/null; done
fi
if [ -n "$push" ]; then
  if [ ${#archs[@]} -gt 1 ]; then buildah manifest push --all "$IMAGE_REPO:$version" "docker://$push" >&2
  else buildah push "$IMAGE_REPO:$version" "docker://$push" >&2; fi
fi
(cd "$out" && sha256sum -- * > SHA256SUMS)
if $tag; then
  git -C "$root" tag -a "v$version" -m "kerf $version"
  log "created git tag v$version (push it with: git push origin v$version)"
fi
log "release v$version in ${out#"$root"/}:"
ls -1 "$out" >&2
