#!/usr/bin/env bash
# Installs and runs the app on the embedded defaults: offline embedder and answerer, knowledge/ indexed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node22.sh
# onnxruntime-node's install step would download CUDA files from outside the npm registry: package.json's
# allowScripts keeps it from running on npm versions that read it, this on the older ones that run every step.
[ -d node_modules/next ] || ONNXRUNTIME_NODE_INSTALL=skip npm ci
[ -f .next/BUILD_ID ] && [ -f dist/workers/parse.mjs ] && [ -z "${REBUILD:-}" ] || npm run build
# server.mjs: the same entry as `npm start`; it tells the app each request's real peer (see docs/security.md).
exec node server.mjs -p "${PORT:-3000}" -H "${BIND_HOST:-127.0.0.1}"
