#!/usr/bin/env bash
# The npm scripts that run TypeScript (ingest, ask, faq, eval, bench) start through this: under Node.js 22, which
# scripts/node22.sh puts first on PATH (installing it into .tools/ when the node on PATH is older), or not at all.
# Its messages go to stderr: `npm run ask -- --json` keeps a clean stdout.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Before anything is fetched: without `npm ci` there is nothing to run.
if [ ! -x "$_root/node_modules/.bin/$1" ]; then
  echo "The npm packages are not installed: run 'npm ci' first ('source scripts/node22.sh' before it puts Node.js 22 first on PATH), then this command again." >&2
  exit 1
fi
source "$_root/scripts/node22.sh" >&2 || exit 1
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
  echo "This command needs Node.js 22 or later: run 'source scripts/node22.sh' (or install Node.js 22) and try again." >&2
  exit 1
fi
exec "$@"
