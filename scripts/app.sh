#!/usr/bin/env bash
# Installs and runs the app on the embedded defaults: offline embedder and answerer, knowledge/ indexed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node22.sh
[ -d node_modules/next ] || npm ci
[ -f .next/BUILD_ID ] && [ -f dist/workers/parse.mjs ] && [ -z "${REBUILD:-}" ] || npm run build
# server.mjs: the same entry as `npm start`; it tells the app each request's real peer (see docs/security.md).
exec node server.mjs -p "${PORT:-3000}" -H "${BIND_HOST:-127.0.0.1}"
