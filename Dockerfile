# svc-gateway container image: both builds, full by default.
#
#   docker build -t svc-gateway --build-arg COMMIT=$(git rev-parse --short=12 HEAD) .
#   docker run -d -p 8080:8080 -v svc-data:/data svc-gateway            # full build
#   docker run --rm svc-gateway gateway-lite --help                       # lite build
#
# BASE is any Debian bookworm image with Node.js 20 in /usr/local (the official
# node image by default; `npm run test:image` builds a local one from Debian's
# packages because no registry image can be pulled on its machines).
ARG BASE=node:20-bookworm-slim

FROM ${BASE} AS build
# better-sqlite3 compiles from source when its prebuilt binary cannot be fetched:
# python3, make and g++, against the Node.js headers that come with the base.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local \
    npm_config_update_notifier=false \
    TURBO_TELEMETRY_DISABLED=1 \
    DO_NOT_TRACK=1 \
    CI=true
WORKDIR /src
# The pinned pnpm of package.json "packageManager" (corepack's signature check
# fails against some registries; npx does not need it).
ARG PNPM_VERSION=10.34.9
RUN npm install -g "pnpm@${PNPM_VERSION}" && pnpm --version
# Dependencies first, from the lockfile alone: this layer survives source edits.
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json .npmrc ./
RUN pnpm fetch
COPY . .
ARG COMMIT=unknown
ENV SVC_BUILD_COMMIT=${COMMIT}
RUN pnpm install --offline --frozen-lockfile \
 && pnpm exec turbo run build --filter=@svc/gateway-full --filter=@svc/gateway-lite
# The runtime tree: every workspace package's manifest and dist/, with production
# dependencies only (from the same lockfile and store; native builds are reused).
RUN mkdir /prod \
 && cp package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc /prod/ \
 && for d in packages/* apps/* tests tests/kits; do \
      mkdir -p "/prod/$d" && cp "$d/package.json" "/prod/$d/" \
      && if [ -d "$d/dist" ]; then cp -r "$d/dist" "/prod/$d/"; fi; \
    done \
 && cp -r packages/admin-api/drizzle packages/admin-api/drizzle-pg /prod/packages/admin-api/ \
 && cp -r packages/playback/assets /prod/packages/playback/ \
 && find /prod -name '*.tsbuildinfo' -delete -o -name '*.test.js*' -delete \
 && rm -rf /prod/tests/dist /prod/tests/kits/dist \
 && cd /prod && pnpm install --prod --offline --frozen-lockfile

FROM ${BASE} AS runtime
# ffmpeg: the DASH compatibility engine; tini: PID 1 that forwards SIGTERM to
# node and reaps the ffmpeg processes node leaves to it; sqlite3: backups
# (docs/deploy.md); ca-certificates: HTTPS origins.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg tini sqlite3 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 svc \
 && useradd --system --uid 10001 --gid svc --home-dir /data --no-create-home --shell /usr/sbin/nologin svc \
 && mkdir -p /data && chown svc:svc /data && chmod 0700 /data
COPY --from=build /prod /app
COPY --chmod=0755 docker/gateway-full docker/gateway-lite /usr/local/bin/
ENV NODE_ENV=production \
    SVC_CONFIG=/data/gateway.yaml \
    SVC_LOG_FORMAT=json
USER svc:svc
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
# /healthz answers {"status":"ok"} without credentials (spec "Public").
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["gateway-full"]
