# bash completion for zcast (installed as share/bash-completion/completions/zcast).
# Commands and flags come from `zcast --help` and `zcast COMMAND --help`, so they follow the tool;
# topic names from `zcast list` (the live ones) and type names from `zcast interface list`.

_zcast_commands() { "$1" --help 2>/dev/null | awk '/^commands:/{on=1; next} on && /^$/{exit} on{print $1}'; }
_zcast_flags() { "$1" "$2" --help 2>/dev/null | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | tr -d ' ,'; }
# The flags of COMMAND that take a value ("--count N"): their next word is no argument.
_zcast_valued() {
	"$1" "$2" --help 2>/dev/null | grep -oE -- '(-[a-zA-Z], )?--[a-zA-Z-]+ [A-Z]+' |
		awk '{sub(/,$/, "", $1); print $1; if (NF == 3) print $2}'
}
_zcast_topics() { "$1" ${2:+-d "$2"} list -w 0 2>/dev/null | awk '$1 ~ /^\// {print $1}'; }
_zcast_types() { "$1" interface list 2>/dev/null | awk '{print $1}'; }

_zcast() {
	local zcast=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd="" domain="" i npos=0 valued=""
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		local w=${COMP_WORDS[i]}
		case $w in
		-d | --domain) domain=${COMP_WORDS[i + 1]}; ((i++)) ;;
		-*) [[ -n $cmd && $'\n'$valued$'\n' == *$'\n'$w$'\n'* ]] && ((i++)) ;;
		*) if [[ -z $cmd ]]; then
			cmd=$w valued=$(_zcast_valued "$zcast" "$w")
		else ((npos++)); fi ;;
		esac
	done
	local words
	if [[ -z $cmd ]]; then
		[[ $prev == -d || $prev == --domain ]] && return 0
		if [[ $cur == -* ]]; then words="-d --help --version"; else words=$(_zcast_commands "$zcast"); fi
	elif [[ $cur == -* ]]; then
		words=$(_zcast_flags "$zcast" "$cmd")
	elif [[ $prev == --type || $prev == -t ]] && [[ $cmd == list ]]; then
		words=$(_zcast_types "$zcast")
	elif [[ $prev == -* && $'\n'$valued$'\n' == *$'\n'$prev$'\n'* ]]; then
		return 0 # the flag's value: nothing to propose
	else
		case $cmd:$npos in
		interface:0) words="list show" ;;
		interface:1) words=$(_zcast_types "$zcast") ;;
		pub:1) words=$(_zcast_types "$zcast") ;;
		echo:0 | hz:0 | bw:0 | delay:0 | info:0 | pub:0 | rm:0 | record:*) words=$(_zcast_topics "$zcast" "$domain") ;;
		esac
	fi
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}
complete -F _zcast zcast
