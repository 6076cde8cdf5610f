# Helpers of the config file tests (sourced, with BRIDGE and W set and fail defined):
#   bad <message after "file:"> <lines...>  the file of those lines fails --check with exit 1 and
#                                            "<file>:<message>"
bad() {
  local want=$1; shift
  printf '%s\n' "$@" > "$W/bad.conf"
  local msg rc=0
  msg=$("$BRIDGE" --check "$W/bad.conf" 2>&1) || rc=$?
  [ "$rc" -eq 1 ] || fail "exit status $rc (want 1) for: $* -> $msg"
  grep -qF "$W/bad.conf:$want" <<<"$msg" || fail "want \"$want\", got \"$msg\""
}
