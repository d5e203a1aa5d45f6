# The service's container image (docs/deployment.md, "Containers"). Two stages: the first installs every
# dependency from the lockfile and builds dist/, the last holds only what runs: dist/, the production
# dependencies, the WSDL and the templates, owned by root and run by an unprivileged user.
#
#   podman build -t authentication-asmx .        (or docker build; BASE chooses another Node.js 22.14+ image)
#
# The official Node.js image unless BASE names another (test/deploy/container.test.ts builds on a local one).
ARG BASE=node:24-bookworm-slim

FROM ${BASE} AS build
WORKDIR /app
# The dependencies in a layer of their own, reinstalled only when the lockfile changes. Their install scripts
# are left off (none runs anyway: package.json's allowScripts), and so is the project's own prepare script,
# which would build dist/ before the sources are here: the build is the next step. check-node.cjs, the
# preinstall script, runs by hand, so that a BASE with too old a Node.js stops here with its one line.
COPY package.json package-lock.json ./
COPY scripts/check-node.cjs scripts/
RUN node scripts/check-node.cjs && npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src src
RUN npm run build \
 && rm dist/.tsbuildinfo \
 && chmod +x dist/cli/index.js \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${BASE}
# HOST: every address of the container (the service's own default is loopback only). DATA_DIR: the volume
# below, where the embedded SQLite store and the server key made on first start live.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
RUN groupadd --system --gid 10001 authentication-asmx \
 && useradd --system --uid 10001 --gid authentication-asmx --home-dir /data --no-create-home --shell /usr/sbin/nologin authentication-asmx \
 && install -d -o authentication-asmx -g authentication-asmx -m 0700 /data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY wsdl wsdl
COPY templates templates
COPY deploy/container/healthcheck.mjs deploy/container/
# The admin CLI by its package name: podman exec CONTAINER authentication-asmx callers list
RUN ln -s /app/dist/cli/index.js /usr/local/bin/authentication-asmx
USER authentication-asmx
VOLUME /data
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 CMD ["node", "/app/deploy/container/healthcheck.mjs"]
# node itself is the container's first process (no shell in between), so the SIGTERM of docker stop or podman
# stop reaches the service, which drains: /readyz answers 503, requests in flight finish within SHUTDOWN_TIMEOUT.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "--enable-source-maps", "/app/dist/cli/index.js"]
CMD ["serve"]
