#!/usr/bin/env bash
# Installs the independent MCAP reader (npm's @mcap/core, Foxglove's ROS 2 message parser and CDR
# reader) into NPM_DIR once, for mcap_check.cjs. Exits 77 (skip) only when nodejs or npm is missing
# or npm cannot fetch the packages.
# Usage: mcap_js_modules.sh NPM_DIR
set -euo pipefail
mods=$1
command -v node >/dev/null || { echo "SKIP: no nodejs"; exit 77; }
[ -d "$mods/node_modules/@foxglove/rosmsg2-serialization" ] && exit 0
command -v npm >/dev/null || { echo "SKIP: no npm"; exit 77; }
mkdir -p "$mods"
if ! timeout 300 npm install --prefix "$mods" --no-audit --no-fund --no-save @mcap/core@2.2.2 \
    @mcap/support@1.1.0 @foxglove/rosmsg@5.0.5 @foxglove/rosmsg2-serialization@3.1.0 >"$mods/npm.log" 2>&1; then
  echo "SKIP: npm could not fetch the packages:"; tail -5 "$mods/npm.log"; exit 77
fi
