#!/usr/bin/env bash
# The API reference, from the comments in include/zcast/ (Debian's doxygen). Every public name must
# be documented and any doxygen warning fails the run (make docs; the `docs` test in make test).
# Usage: scripts/docs.sh OUTPUT_DIR       result: OUTPUT_DIR/html/index.html
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: docs.sh OUTPUT_DIR}
mkdir -p "$out"
version=$(sed -n 's/^project(zcast VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
log=$out/doxygen.log
# FAIL_ON_WARNINGS: all warnings are printed, then doxygen exits non-zero.
doxygen - >"$log" 2>&1 <<CFG || { cat "$log"; echo "docs: doxygen failed"; exit 1; }
PROJECT_NAME           = zcast
PROJECT_NUMBER         = $version
PROJECT_BRIEF          = "Zero-copy publish/subscribe between processes on one Linux host"
OUTPUT_DIRECTORY       = $out
INPUT                  = $src/include/zcast $src/docs/API.md
USE_MDFILE_AS_MAINPAGE = $src/docs/API.md
FILE_PATTERNS          = *.h *.hpp
STRIP_FROM_PATH        = $src/include
OPTIMIZE_OUTPUT_FOR_C  = NO
EXTRACT_ALL            = NO
EXTRACT_STATIC         = NO
HIDE_UNDOC_MEMBERS     = NO
WARN_IF_UNDOCUMENTED   = YES
WARN_IF_DOC_ERROR      = YES
WARN_NO_PARAMDOC       = NO
WARN_AS_ERROR          = FAIL_ON_WARNINGS
QUIET                  = YES
GENERATE_LATEX         = NO
HAVE_DOT               = NO
GENERATE_HTML          = YES
MACRO_EXPANSION        = YES
EXPAND_ONLY_PREDEF     = YES
PREDEFINED             = ZCAST_API= __cplusplus
EXCLUDE_SYMBOLS        = zcast::detail ZCAST_ZCAST_H ZCAST_WAITSET_H ZCAST_EXECUTOR_H ZCAST_ZCAST_HPP
CFG
if grep -q -e 'warning:' -e 'error:' "$log"; then cat "$log"; echo "docs: doxygen warnings"; exit 1; fi
echo "docs: $out/html/index.html"
