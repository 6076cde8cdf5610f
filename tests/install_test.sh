#!/usr/bin/env bash
# `make install` layout: headers, shared and static library, zcast.pc; a program built with
# pkg-config against the installed copy runs.
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/zcast/zcast.h include/zcast/waitset.h lib/libzcast.so lib/libzcast.a lib/pkgconfig/zcast.pc bin/zcast; do
  [ -e "$prefix/$f" ] || [ -e "$prefix/${f/lib\//lib/x86_64-linux-gnu/}" ] || { echo "FAIL: $f not installed"; exit 1; }
done
pc=$(dirname "$(find "$prefix" -name zcast.pc | head -1)")
export PKG_CONFIG_PATH=$pc
cc -std=c11 -Wall -Werror "$src/examples/subscriber.c" $(pkg-config --cflags --libs zcast) -o "$prefix/sub"
cc -std=c11 -Wall -Werror "$src/examples/publisher.c" $(pkg-config --cflags --libs zcast) -o "$prefix/pub"
export ZCAST_DOMAIN="tinstall-$$"
libdir=$(pkg-config --variable=libdir zcast)
LD_LIBRARY_PATH=$libdir timeout 20 "$prefix/sub" > "$prefix/out" &
sub=$!
sleep 0.3
LD_LIBRARY_PATH=$libdir timeout 20 "$prefix/pub"
wait $sub
[ "$(grep -c hello "$prefix/out")" -eq 10 ] || { echo "FAIL: subscriber got: $(cat "$prefix/out")"; exit 1; }
echo "install: ok"
