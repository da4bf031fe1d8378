# syntax=docker/dockerfile:1
# Node 24, the active LTS (supported until April 2028); package.json `engines` lists what runs.
# Build stage: compile TypeScript with the dev dependencies.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/copy-function-files.ts ./scripts/
RUN npm run build

# Runtime stage: production dependencies, compiled code and migrations, as a non-root user.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/app/data
# A bounded heap: V8 otherwise lets garbage pile up toward a limit sized for the whole machine
# (peak RSS 250 MB instead of 150 MB under the benchmark's flash sale). The live heap is ~50 MB.
# A young generation of 8 MB semi-spaces instead of 16: peak RSS in the flash sale 142-147 MB
# instead of 159-165 on PostgreSQL (275-294 instead of 293-326 on PGlite), sales/s unchanged.
ENV NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=8"
# glibc's allocator gives blocks of 128 KiB or more back to the system when they are freed: by
# default it starts keeping them once one large block has been freed, so that each libuv thread
# that hashed a password kept its 19 MiB argon2 block, and the embedded database's start left
# 60 to 70 MB behind (docs/performance.md, Memory).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY migrations ./migrations
COPY scan-page ./scan-page
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:3000/iam/v1/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["node", "dist/server.js"]
