# Helpers of the config file tests (sourced, with BRIDGE and W set and fail defined):
#   bad <message after "file:"> <lines...>  the file of those lines fails --check with exit 1 and
#                                            "<file>:<message>"
#   good <lines...>                          the file of those lines passes --check
bad() {
  local want=$1; shift
  printf '%s\n' "$@" > "$W/bad.conf"
  local msg rc=0
  msg=$("$BRIDGE" --check "$W/bad.conf" 2>&1) || rc=$?
  [ "$rc" -eq 1 ] || fail "exit status $rc (want 1) for: $* -> $msg"
  grep -qF "$W/bad.conf:$want" <<<"$msg" || fail "want \"$want\", got \"$msg\""
}
good() { # the file's lines: accepted
  printf '%s\n' "$@" > "$W/good.conf"
  "$BRIDGE" --check "$W/good.conf" > "$W/out" 2>&1 || fail "rejected: $* -> $(cat "$W/out")"
}
