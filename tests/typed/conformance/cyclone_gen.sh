#!/usr/bin/env bash
# Cyclone DDS's C types for the conformance test: the .idl files rosidl_adapter makes from our .msg
# definitions (through zcast-msggen --idl-dir), compiled by Cyclone's idlc. idlc 0.10.2 skips the
# @verbatim comment annotations with a warning, and needs -f case-sensitive because constants such
# as PointField's INT8 differ from IDL keywords only in case. rosidl's .idl files have no include
# guards (ROS 2 does not use a C preprocessor on them); for idlc's we add them, so a type reached
# twice (Nested -> Corner -> Time and Nested -> Time) is declared once.
# Usage: cyclone_gen.sh <source dir> <output dir> <type>...
set -euo pipefail
src=$1 out=$2
shift 2
rm -rf "$out/idl" "$out/c"
mkdir -p "$out/idl" "$out/c"
/usr/bin/python3 "$src/tools/zcast-msggen" -I "$src/msg" -I "$src/tests/typed/msg" -o "$out/zcast" \
  --idl-dir "$out/idl" "$@"
cd "$out/idl"
for f in $(find . -name '*.idl'); do
  guard=ZT_$(tr -c 'A-Za-z0-9\n' _ <<<"$f")
  { echo "#ifndef $guard"; echo "#define $guard"; cat "$f"; echo "#endif"; } > "$f.tmp"
  mv "$f.tmp" "$f"
done
for f in $(find . -name '*.idl' | sort); do
  if ! idlc -f case-sensitive -Wno-implicit-extensibility -I "$out/idl" -b "$out/idl" -o "$out/c" \
      "$f" 2> "$out/idlc.log"; then
    cat "$out/idlc.log" >&2
    exit 1
  fi
done
touch "$out/stamp"
