#!/usr/bin/env bash
# bash completion of zcast (tools/completion/zcast.bash, issue 25): sourced in bash, _zcast called
# with COMP_WORDS as bash would; the candidates are commands, a command's flags, the live topic
# names (zcast list) and the type names (zcast interface list).
set -euo pipefail
zcast=$1 script=$2
export ZCAST_DOMAIN="tcomp-$$"
cleanup() { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -f /dev/shm/zcast.$ZCAST_DOMAIN.*; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=/dev/null
source "$script"
# complete WORD...: the candidates for the last word, one per line, sorted.
complete_words() {
  COMP_WORDS=("$zcast" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _zcast
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
has() { grep -qx -- "$2" <<<"$1" || fail "no '$2' among: $1"; }
hasnt() { ! grep -qx -- "$2" <<<"$1" || fail "'$2' among: $1"; }

out=$(complete_words '')
for c in list info echo pub delay interface record; do has "$out" "$c"; done
out=$(complete_words ec)
[ "$out" = echo ] || fail "ec: $out"
out=$(complete_words echo --)
for f in --csv --no-arr --field --once --count --json --timeout; do has "$out" "$f"; done
hasnt "$out" --rate
out=$(complete_words pub --)
for f in --rate --once --times --wait-matching; do has "$out" "$f"; done
out=$(complete_words interface '')
[ "$out" = $'list\nshow' ] || fail "interface: $out"
out=$(complete_words interface show sensor_msgs/msg/Ima)
[ "$out" = sensor_msgs/msg/Image ] || fail "interface show: $out"
out=$(complete_words list --type std_msgs/msg/Str)
[ "$out" = std_msgs/msg/String ] || fail "list --type: $out"
out=$(complete_words echo --field '')
[ -z "$out" ] || fail "a flag's value: $out"

# live topic names
out=$(complete_words echo /tcomp/)
[ -z "$out" ] || fail "topics before any publisher: $out"
"$zcast" pub /tcomp/alpha std_msgs/msg/String '{data: a}' --rate 20 >/dev/null &
"$zcast" pub /tcomp/beta std_msgs/msg/Int32 '{data: 1}' --rate 20 >/dev/null &
for _ in $(seq 200); do
  [ "$(complete_words echo /tcomp/ | wc -l)" = 2 ] && break
  sleep 0.05
done
out=$(complete_words echo /tcomp/)
[ "$out" = $'/tcomp/alpha\n/tcomp/beta' ] || fail "topics: $out"
out=$(complete_words echo -n 3 /tcomp/a)
[ "$out" = /tcomp/alpha ] || fail "topic after a flag: $out"
out=$(complete_words pub /tcomp/alpha std_msgs/msg/Int)
has "$out" std_msgs/msg/Int32
echo "typed3 completion: ok"
