#!/usr/bin/env bash
# Uncompressed chunks streamed to the file, read by the independent MCAP reader: test_bag_direct
# leaves a file copied while a chunk was open (its opening still the placeholder, as a writer
# killed there leaves it), its reindexed copy and the finished files (CRCs on and off); all go
# through mcap_check.cjs (@mcap/core, CRCs validated). Skips (77) only when npm cannot fetch.
# Usage: direct_js_test.sh TEST_BAG_DIRECT OUT_DIR NPM_DIR
set -euo pipefail
prog=$1 out=$2 mods=$3
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out"
mkdir -p "$out"
"$prog" "$out"
"$here/mcap_js_modules.sh" "$mods"
node "$here/mcap_check.cjs" "$mods/node_modules" "$out"/*.mcap
