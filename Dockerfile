# Build stage: compile TypeScript with the locked dev dependencies.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install --no-save, not npm ci: see scripts/ensure-deps.mjs (the lock omits
# unpublished platform builds of an optional native dependency).
RUN npm install --no-save --no-audit --no-fund
COPY tsconfig.json tsconfig.runtime.json ./
COPY api ./api
COPY worker ./worker
COPY shared ./shared
COPY cli ./cli
COPY web ./web
COPY scripts/copy-web-assets.mjs ./scripts/
# Runtime code only (tsconfig.runtime.json): no tests, benchmarks or dev scripts in the image.
RUN npx tsc -p tsconfig.runtime.json && npx tsc -p web/tsconfig.json && node scripts/copy-web-assets.mjs

# Runtime stage: production dependencies and compiled code only.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-save --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 8080
# The same image runs the API (default) or a worker (command: node --single-threaded dist/worker/main.js).
CMD ["node", "dist/api/server.js"]
