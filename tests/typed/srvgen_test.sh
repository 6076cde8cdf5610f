#!/usr/bin/env bash
# zcast-msggen on .srv files: reproduces every service hash of tests/data/rihs01_srv.tsv (the
# services with --hash, their request and response messages from the generated headers), and
# reports invalid .srv files as file:line with exit status 1.
set -uo pipefail
src=$1
gen="/usr/bin/python3 $src/tools/zcast-msggen -I $src/tests/typed/msg -I $src/msg"
fail=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
vectors=$(grep -v '^#' "$src/tests/data/rihs01_srv.tsv")
while IFS=$'\t' read -r name want; do
  case $name in
  *_Request | *_Response) # the message's hash, from the service's generated header
    srv=${name%_*}
    $gen -o "$out" "$srv" >/dev/null || { echo "FAIL: generating $srv"; fail=1; continue; }
    got=$(grep -ho "${name//\//_}_TYPE_HASH_STR \"[^\"]*\"" "$out/$name.h" | cut -d'"' -f2) ;;
  *) got=$($gen --hash "$name" | cut -f2) ;;
  esac
  [ "$got" = "$want" ] || { echo "FAIL: $name: got '$got', want $want"; fail=1; }
done <<<"$vectors"
[ "$(wc -l <<<"$vectors")" -ge 9 ] || { echo "FAIL: vectors missing"; fail=1; }

# pkg/Name finds a service when no message has that name; the headers a service gives.
[ "$($gen --hash std_srvs/SetBool | cut -f1)" = std_srvs/srv/SetBool ] ||
  { echo "FAIL: std_srvs/SetBool is not found as a service"; fail=1; }
for h in std_srvs/srv/SetBool.h std_srvs/srv/SetBool_Request.h std_srvs/srv/SetBool_Response.h \
  service_msgs/msg/ServiceEventInfo.h; do
  $gen -o "$out/hdr" std_srvs/srv/SetBool >/dev/null
  [ -f "$out/hdr/$h" ] || { echo "FAIL: $h not written"; fail=1; }
done

bad=$src/tests/typed/bad/bad_msgs/srv
expect() { # file line text (line "": the file as a whole)
  msg=$($gen -o "$out/bad" "$bad/$1.srv" 2>&1)
  rc=$?
  where="$bad/$1.srv${2:+:$2}: "
  if [ $rc -ne 1 ] || ! grep -qF "$where" <<<"$msg" || ! grep -qF "$3" <<<"$msg"; then
    echo "FAIL: $1.srv: rc=$rc, got: $msg (want line $2 and '$3')"; fail=1
  fi
}
expect NoSeparator "" "Could not find separator"
expect TwoSeparators 4 "unique separator"
expect BadResponse 4 "invalid field name"
[ ! -e "$out/bad" ] || { echo "FAIL: headers written for invalid definitions"; fail=1; }
msg=$($gen --hash nopkg/srv/Missing 2>&1)
grep -qF "service type nopkg/srv/Missing not found" <<<"$msg" || { echo "FAIL: missing: $msg"; fail=1; }
[ $fail -eq 0 ] && echo "srvgen: ok"
exit $fail
