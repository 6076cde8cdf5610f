#!/usr/bin/env bash
# make uninstall: removes every file the last `make install` wrote (CMake's install_manifest.txt; the
# manifest has the paths without DESTDIR, so pass the same DESTDIR again), then the directories of zcast's own that are left empty: a file's directory and
# its parents up to the nearest one named `zcast` (include/zcast, lib/cmake/zcast, share/doc/zcast,
# share/doc/zcast/examples, libexec/zcast). Shared directories such as bin/ and lib/ stay.
set -euo pipefail
manifest=${1:?usage: uninstall.sh BUILD/install_manifest.txt}
[ -f "$manifest" ] || { echo "uninstall: $manifest not found (nothing was installed from this build)" >&2; exit 1; }
n=0
while IFS= read -r f || [ -n "$f" ]; do
  [ -n "$f" ] || continue
  f=${DESTDIR:-}$f
  if [ -e "$f" ] || [ -L "$f" ]; then rm -f -- "$f"; n=$((n+1)); fi
done <"$manifest"
while IFS= read -r f || [ -n "$f" ]; do
  chain=() d=$(dirname -- "${DESTDIR:-}$f")
  while [ "$d" != / ] && [ "$d" != . ]; do
    chain+=("$d")
    [ "$(basename -- "$d")" = zcast ] && break
    d=$(dirname -- "$d")
  done
  [ ${#chain[@]} -gt 0 ] && [ "$(basename -- "${chain[-1]}")" = zcast ] || continue
  for d in "${chain[@]}"; do rmdir -- "$d" 2>/dev/null || break; done
done < <(sort -r "$manifest") # deepest paths first
echo "uninstall: removed $n files"
