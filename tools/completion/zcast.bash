# bash completion of the zcast tool: commands, their flags (read from `zcast CMD --help`, so new
# flags need no edit here), live topic names (`zcast list`), services (`zcast service list`),
# message types (`zcast interface list`) and domains (the /dev/shm file names). Installed as
# share/bash-completion/completions/zcast.

# The domain given on the line (-d D, --domain D, --domain=D), else none: zcast's own default.
_zcast_domain_args() {
	local i
	for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
		case ${COMP_WORDS[i]} in
		-d | --domain) echo "-d ${COMP_WORDS[i + 1]}"; return ;;
		--domain=*) echo "-d ${COMP_WORDS[i]#--domain=}"; return ;;
		esac
	done
}

# topics: the first table of `zcast list` (services follow it after an empty line)
_zcast_topics() { "$1" $(_zcast_domain_args) list -w 0 2>/dev/null | awk 'NR > 1 && !NF { exit } NR > 1 && $1 ~ /^\// { print $1 }'; }
_zcast_services() { "$1" $(_zcast_domain_args) service list 2>/dev/null | awk 'NR > 1 { print $1 }'; }
_zcast_types() { "$1" interface list 2>/dev/null | awk '{ print $1 }'; }
_zcast_domains() {
	local f
	for f in /dev/shm/zcast.*.*; do
		[ -e "$f" ] || continue
		f=${f#/dev/shm/zcast.}
		echo "${f%%.*}"
	done | sort -u
}
_zcast_commands() { "$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'; }
_zcast_flags() { "$1" "$2" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u; }

_zcast() {
	local zcast=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local cmd="" i npos=0
	# the command: the first word that is not an option or an option's value
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-d | --domain) ((i++)) ;;
		-*) ;;
		*) if [ -z "$cmd" ]; then cmd=${COMP_WORDS[i]}; else ((npos++)); fi ;;
		esac
	done
	case $prev in
	-d | --domain) COMPREPLY=($(compgen -W "$(_zcast_domains)" -- "$cur")); return ;;
	--type) COMPREPLY=($(compgen -W "$(_zcast_types "$zcast")" -- "$cur")); return ;;
	-o | --output | --file) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$(_zcast_commands "$zcast") -d --domain --help" -- "$cur"))
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_zcast_flags "$zcast" "$cmd")" -- "$cur"))
		return
	fi
	case $cmd:$npos in
	echo:0 | hz:0 | bw:0 | delay:0 | info:0 | pub:0 | rm:0 | record:*)
		COMPREPLY=($(compgen -W "$(_zcast_topics "$zcast")" -- "$cur")) ;;
	pub:1) COMPREPLY=($(compgen -W "$(_zcast_types "$zcast")" -- "$cur")) ;;
	interface:0) COMPREPLY=($(compgen -W "list show" -- "$cur")) ;;
	interface:1) COMPREPLY=($(compgen -W "$(_zcast_types "$zcast")" -- "$cur")) ;;
	bag:0) COMPREPLY=($(compgen -W "info reindex" -- "$cur")) ;;
	service:0) COMPREPLY=($(compgen -W "list info call" -- "$cur")) ;;
	service:1) COMPREPLY=($(compgen -W "$(_zcast_services "$zcast")" -- "$cur")) ;;
	bag:* | play:*) COMPREPLY=($(compgen -f -- "$cur")) ;;
	esac
}
complete -F _zcast zcast
