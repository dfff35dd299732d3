#!/usr/bin/env bash
# Runs every test (unit, store, eval regression, MCP/HTTP integration, browser end-to-end) under Node 22.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node22.sh
[ -d node_modules/next ] || npm ci --no-audit --no-fund
exec npm test
