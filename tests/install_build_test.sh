#!/usr/bin/env bash
# What `make install` needs and builds: GETTING_STARTED.md names every package scripts/deps.sh
# installs for it, and `make build` configures the installable build: the library, the tool, the
# examples, Python, no test programs (they were all built, and none installed).
set -euo pipefail
src=$1
for pkg in $(sed -n 's/^ *\[build\]="\(.*\)"$/\1/p' "$src/scripts/deps.sh"); do
  grep -q "deps.sh build.*[ ,]$pkg\b" "$src/docs/GETTING_STARTED.md" ||
    { echo "FAIL: GETTING_STARTED.md does not name $pkg (scripts/deps.sh build installs it)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
line=$(make -s -n -C "$src" build BUILD="$tmp" JOBS=1 | grep -- "-S \. -B $tmp" | head -1)
[ -n "$line" ] || { echo "FAIL: no configure line in make -n build"; exit 1; }
(cd "$src" && eval "${line#@}")
targets=$(cmake --build "$tmp" --target help)
grep -q 'zcast_cli' <<<"$targets" || { echo "FAIL: the tool is not built: $targets"; exit 1; }
n=$(grep -cE '^\.\.\. (test_|zt_|typed_)' <<<"$targets" || true)
[ "$n" -eq 0 ] || { echo "FAIL: make build builds $n test programs"; grep -E '^\.\.\. (test_|zt_|typed_)' <<<"$targets" | head; exit 1; }
echo "build without tests: ok"
