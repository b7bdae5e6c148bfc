# Sourced by .ci/test.sh and .ci/start.sh: installs the pinned npm dependencies (and with them
# Node 24) when node_modules is missing or older than package-lock.json, then puts
# node_modules/.bin first on PATH so `node` is Node 24. Expects $root (the checkout) and $tag.
stamp="$root/node_modules/.kerf-lock-hash"
want=$(sha256sum "$root/package-lock.json" | cut -d' ' -f1)
if [ ! -x "$root/node_modules/node/bin/node" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "[$tag] installing npm dependencies (npm ci)"
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" > "$stamp"
fi
export PATH="$root/node_modules/.bin:$PATH"
