#!/usr/bin/env bash
# Bash completion of the zcast tool (tools/completion/zcast.bash): commands, flags of a command,
# live topic names of the domain on the line, message types (shipped and of a type library), the
# subcommands of interface and bag; and the installed copy is where bash-completion looks.
set -euo pipefail
zcast=$1 libdir=$2 script=$3
. "$(dirname "$0")/../zt_scene.sh"
scene tcomp
export ZCAST_TYPE_PATH=$libdir
# shellcheck source=/dev/null
source "$script"
# complete WORD...: the candidates for the last word, one per line
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_zcast
	printf '%s\n' "${COMPREPLY[@]}"
}
has() { grep -qxF -- "$1" <<<"$out" || fail "'$1' not among: $out"; }

out=$(complete_words "$zcast" "")
for c in list echo pub record play bag interface doctor; do has "$c"; done
out=$(complete_words "$zcast" ec); [ "$out" = echo ] || fail "ec: $out"
out=$(complete_words "$zcast" echo --); has --csv; has --no-arr; has --field; has --json
out=$(complete_words "$zcast" pub --wa); [ "$out" = --wait-matching ] || fail "pub --wa: $out"
out=$(complete_words "$zcast" interface ""); has list; has show
out=$(complete_words "$zcast" bag ""); has info; has reindex
out=$(complete_words "$zcast" interface show sensor_msgs/msg/Im); has sensor_msgs/msg/Imu
out=$(complete_words "$zcast" interface show zcast_test/msg/Fi); has zcast_test/msg/Fixed
out=$(complete_words "$zcast" list --type std_msgs/msg/Str); has std_msgs/msg/String

# live topics: of $ZCAST_DOMAIN, or of the domain given with -d
"$zcast" pub /comp/alpha std_msgs/String '{data: a}' --rate 20 >/dev/null 2>&1 &
ZCAST_DOMAIN=$other "$zcast" pub /comp/beta std_msgs/String '{data: b}' --rate 20 >/dev/null 2>&1 &
for _ in $(seq 100); do
	"$zcast" list 2>/dev/null | grep -q /comp/alpha && ZCAST_DOMAIN=$other "$zcast" list 2>/dev/null | grep -q /comp/beta && break
	sleep 0.1
done
out=$(complete_words "$zcast" echo /comp/); [ "$out" = /comp/alpha ] || fail "echo /comp/: $out"
out=$(complete_words "$zcast" -d $other echo /comp/); [ "$out" = /comp/beta ] || fail "-d: $out"
out=$(complete_words "$zcast" pub /comp/alpha std_msgs/msg/Str); has std_msgs/msg/String
out=$(complete_words "$zcast" -d tcomp2-); has $other
echo PASS
