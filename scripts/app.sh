#!/usr/bin/env bash
# Installs and runs the app on the embedded defaults: offline embedder and answerer, knowledge/ indexed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node22.sh
[ -d node_modules/next ] || npm ci
[ -f .next/BUILD_ID ] && [ -z "${REBUILD:-}" ] || npx next build
exec npx next start -p "${PORT:-3000}" -H "${BIND_HOST:-127.0.0.1}"
