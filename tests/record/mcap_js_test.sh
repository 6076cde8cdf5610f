#!/usr/bin/env bash
# The recordings of record_cli checked by an independent reader: the MCAP reference reader for
# TypeScript and Foxglove's ROS 2 CDR reader, installed with npm into the build tree and run with
# Debian's nodejs (mcap_check.cjs). Skips (77) only when npm cannot fetch the packages.
# Usage: mcap_js_test.sh RECORD_OUT_DIR NPM_DIR
set -euo pipefail
out=$1
mods=$2
here=$(cd "$(dirname "$0")" && pwd)
"$here/mcap_js_modules.sh" "$mods"
mapfile -t files < <(find "$out" -name '*.mcap' | sort)
[ "${#files[@]}" -ge 5 ] || { echo "FAIL: record_cli left ${#files[@]} files in $out"; exit 1; }
node "$here/mcap_check.cjs" "$mods/node_modules" "${files[@]}"
# The checker must notice a bad file: a recording cut short without being named as cut.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
head -c $(( $(stat -c %s "${files[0]}") - 40 )) "${files[0]}" >"$tmp/short.mcap"
if node "$here/mcap_check.cjs" "$mods/node_modules" "$tmp/short.mcap" 2>/dev/null; then
  echo "FAIL: the checker accepted a file without its footer"; exit 1
fi
