#!/usr/bin/env bash
# `make install` of typed messages: the generator, the .msg definitions, the CMake package with
# zcast_generate_messages and the pkg-config variables; a user project builds and runs against them.
set -euo pipefail
build=$1 src=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/zcast-msggen share/zcast/msg/sensor_msgs/msg/Image.msg share/zcast/msggen/rihs01.py \
  include/zcast/typed.h include/zcast/cdr.h; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
cfg=$(find "$prefix" -name zcastConfig.cmake | head -1)
[ -n "$cfg" ] || { echo "FAIL: zcastConfig.cmake not installed"; exit 1; }
export PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name zcast.pc | head -1)")
gen=$(pkg-config --variable=msggen zcast)
msgdir=$(pkg-config --variable=msgdir zcast)
[ "$($gen -I "$msgdir" --hash sensor_msgs/Image)" = \
  "$(printf 'sensor_msgs/msg/Image\tRIHS01_d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47')" ] \
  || { echo "FAIL: installed generator via pkg-config"; exit 1; }
cmake -S "$src/tests/typed/install_project" -B "$prefix/user" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/user" >/dev/null
export ZCAST_DOMAIN="tinstalltyped-$$"
LD_LIBRARY_PATH=$(pkg-config --variable=libdir zcast) "$prefix/user/typed_user"
echo "install typed: ok"
