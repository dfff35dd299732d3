#!/usr/bin/env bash
# The npm scripts that run TypeScript (ingest, ask, faq, eval, bench) start through this: under Node.js 22, which
# scripts/node22.sh puts first on PATH (installing it into .tools/ when the node on PATH is older), or not at all.
# Its messages go to stderr: `npm run ask -- --json` keeps a clean stdout.
source "$(dirname "${BASH_SOURCE[0]}")/node22.sh" >&2
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
  echo "This command needs Node.js 22 or later: run 'source scripts/node22.sh' (or install Node.js 22) and try again." >&2
  exit 1
fi
exec "$@"
