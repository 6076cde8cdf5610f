#!/usr/bin/env bash
# The installed package as a user meets it: `cmake --install --prefix` (and DESTDIR) lays out
# headers, libraries, zcast.pc, the CMake package, the tool, examples, docs and man pages; the tool
# and examples run without LD_LIBRARY_PATH (RUNPATH); programs built outside with pkg-config (C and
# C++) and with find_package(zcast) run; the version file refuses a wrong version; uninstall
# (scripts/uninstall.sh on the install manifest) leaves no file behind.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
export ZCAST_DOMAIN="tinstall-$$"
cleanup() { kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"; rm -f /dev/shm/zcast."$ZCAST_DOMAIN".*; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
unset LD_LIBRARY_PATH
prefix=$tmp/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(cd "$prefix" && dirname "$(find . -name libzcast.so | head -1)") # lib or lib/<multiarch>
libdir=${libdir#./}
for f in include/zcast/zcast.h include/zcast/waitset.h include/zcast/executor.h include/zcast/zcast.hpp \
  "$libdir/libzcast.so" "$libdir/libzcast.a" "$libdir/pkgconfig/zcast.pc" \
  "$libdir/cmake/zcast/zcastConfig.cmake" "$libdir/cmake/zcast/zcastConfigVersion.cmake" \
  bin/zcast share/man/man7/zcast.7 share/doc/zcast/LICENSE share/doc/zcast/README.md \
  share/doc/zcast/GETTING_STARTED.md share/doc/zcast/ARCHITECTURE.md share/doc/zcast/examples/publisher.c \
  libexec/zcast/example_publisher libexec/zcast/example_subscriber libexec/zcast/zcast_demo \
  share/bash-completion/completions/zcast; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
for man in "$src"/docs/man/*.[17]; do # every man page of the source tree
  [ -e "$prefix/share/man/man${man##*.}/$(basename "$man")" ] || fail "man page $(basename "$man") not installed"
done

# RUNPATH: the tool and the examples find the installed library by themselves.
for exe in bin/zcast libexec/zcast/example_publisher; do
  readelf -d "$prefix/$exe" | grep -q 'RUNPATH.*\$ORIGIN/' || fail "$exe has no \$ORIGIN RUNPATH"
  [ "$(ldd "$prefix/$exe" | awk '/libzcast/ {print $3}')" -ef "$prefix/$libdir/libzcast.so.0" ] ||
    fail "$exe does not load the installed library: $(ldd "$prefix/$exe" | grep zcast)"
done
# The tool runs (whatever `list` prints or returns for an empty domain, the loader must not fail).
rc=0; "$prefix/bin/zcast" list >"$tmp/tool.out" 2>&1 || rc=$?
[ $rc -ne 127 ] && ! grep -q 'error while loading shared libraries' "$tmp/tool.out" ||
  fail "the installed tool does not start: $(cat "$tmp/tool.out")"
"$prefix/libexec/zcast/example_subscriber" >"$tmp/ex.out" &
"$prefix/libexec/zcast/example_publisher" || fail "installed example_publisher"
wait $! || fail "installed example_subscriber"
[ "$(grep -c hello "$tmp/ex.out")" -eq 10 ] || fail "installed examples: $(cat "$tmp/ex.out")"

# pkg-config, relocatable (found through the .pc file's own place), with the documented rpath flag.
export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
[ "$(pkg-config --variable=libdir zcast)" -ef "$prefix/$libdir" ] || fail "zcast.pc libdir"
[ "$(pkg-config --modversion zcast)" = "$(sed -n 's/^project(zcast VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")" ] ||
  fail "zcast.pc version"
rpath="-Wl,-rpath,$(pkg-config --variable=libdir zcast)"
cc -std=c11 -Wall -Werror "$src/examples/subscriber.c" $(pkg-config --cflags --libs zcast) "$rpath" -o "$tmp/sub"
cc -std=c11 -Wall -Werror "$src/examples/publisher.c" $(pkg-config --cflags --libs zcast) "$rpath" -o "$tmp/pub"
c++ -std=c++17 -Wall -Wextra -Werror "$src/examples/chatter.cpp" $(pkg-config --cflags --libs zcast) "$rpath" -o "$tmp/cpp"
cc -std=c11 -Wall -Werror "$src/examples/publisher.c" $(pkg-config --cflags zcast) \
  "$prefix/$libdir/libzcast.a" $(pkg-config --static --libs-only-l zcast | sed 's/-lzcast//') -o "$tmp/pub_static"
"$tmp/sub" >"$tmp/out" &
"$tmp/pub" || fail "pkg-config publisher"
wait $! || fail "pkg-config subscriber"
[ "$(grep -c hello "$tmp/out")" -eq 10 ] || fail "pkg-config build: subscriber got: $(cat "$tmp/out")"
"$tmp/cpp" >"$tmp/cpp.out" &
"$tmp/cpp" publish || fail "pkg-config C++ publisher"
wait $! || fail "pkg-config C++ subscriber"
grep -q '^received 10 readings$' "$tmp/cpp.out" || fail "C++ build: $(cat "$tmp/cpp.out")"
"$tmp/sub" >"$tmp/out" &
"$tmp/pub_static" || fail "static publisher"
wait $! || fail "subscriber of the static publisher"
[ "$(grep -c hello "$tmp/out")" -eq 10 ] || fail "static build: subscriber got: $(cat "$tmp/out")"
ldd "$tmp/pub_static" | grep -q libzcast && fail "the static build links libzcast.so"

# find_package(zcast) and the imported target zcast::zcast; the version file rejects 9.0.
mkdir -p "$tmp/user"
cat >"$tmp/user/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.16)
project(user C)
find_package(zcast \${WANT} REQUIRED)
add_executable(sub $src/examples/subscriber.c)
target_link_libraries(sub PRIVATE zcast::zcast)
add_executable(pub_static $src/examples/publisher.c)
target_link_libraries(pub_static PRIVATE zcast::zcast_static)
CM
cmake -S "$tmp/user" -B "$tmp/user/b" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=0.1 >"$tmp/cm.log" 2>&1 ||
  { cat "$tmp/cm.log"; fail "find_package(zcast 0.1)"; }
cmake --build "$tmp/user/b" >>"$tmp/cm.log" 2>&1 || { cat "$tmp/cm.log"; fail "build with zcast::zcast"; }
"$tmp/user/b/sub" >"$tmp/out" &
"$tmp/user/b/pub_static" || fail "find_package publisher"
wait $! || fail "find_package subscriber"
[ "$(grep -c hello "$tmp/out")" -eq 10 ] || fail "find_package build: subscriber got: $(cat "$tmp/out")"
cmake -S "$tmp/user" -B "$tmp/user/b9" -DCMAKE_PREFIX_PATH="$prefix" -DWANT=9.0 >/dev/null 2>&1 &&
  fail "find_package(zcast 9.0) accepted version $(pkg-config --modversion zcast)"

# DESTDIR stages under a root, then uninstall removes every file it wrote.
DESTDIR=$tmp/stage cmake --install "$build" --prefix /opt/zc >/dev/null
[ -e "$tmp/stage/opt/zc/include/zcast/zcast.h" ] || fail "DESTDIR install"
DESTDIR=$tmp/stage "$src/scripts/uninstall.sh" "$build/install_manifest.txt" >/dev/null
[ -z "$(find "$tmp/stage" -type f -o -type l)" ] || fail "uninstall left: $(find "$tmp/stage" -type f -o -type l)"
[ -z "$(find "$tmp/stage" -name zcast)" ] || fail "uninstall left directories: $(find "$tmp/stage" -name zcast)"
cmake --install "$build" --prefix "$prefix" >/dev/null # the manifest of the first prefix again
"$src/scripts/uninstall.sh" "$build/install_manifest.txt" >/dev/null
[ -z "$(find "$prefix" -type f -o -type l)" ] || fail "uninstall left: $(find "$prefix" -type f -o -type l)"
[ -z "$(find "$prefix" -name zcast)" ] || fail "uninstall left directories: $(find "$prefix" -name zcast)"
echo "install: ok"
