#!/usr/bin/env bash
# Attachments kept by reindex, checked by the independent reader too: test_bag_attach leaves its
# reindexed file in a temporary directory and mcap_attach_check.cjs (npm's @mcap/core, run by
# Debian's nodejs) reads its attachments. Skips (77) only when npm cannot fetch the packages.
# Usage: record_bag_attach_js_test.sh TEST_BAG_ATTACH NPM_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/mcap_js_modules.sh" "$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$1" "$tmp"
node "$here/mcap_attach_check.cjs" "$2/node_modules" "$tmp/attach.mcap"
