#!/usr/bin/env bash
# The zcast tool on a typed topic: info shows the RIHS01 hash, echo prints the members of a type
# zcast ships, and the untyped pub refuses to write raw text into it unless forced.
set -euo pipefail
zcast=$1 pub=$2
. "$(dirname "$0")/../zt_scene.sh"
scene tclityped

"$pub" &
# The topic is listed as soon as its segment exists, and its type is set by the publisher's join a
# moment later (until then info says "(untyped)"): wait for a type, then check it exactly.
info=
for _ in $(seq 200); do
  info=$("$zcast" info /typed/cli 2>&1) && grep -q '^type: *sensor_msgs' <<<"$info" && break
  sleep 0.05
done
grep -q 'sensor_msgs/msg/Image (hash RIHS01_d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47)' \
  <<<"$info" || fail "info: type and hash: $info"
out=$(timeout 10 "$zcast" echo /typed/cli --count 1)
for want in 'sensor_msgs/msg/Image' '  header.frame_id: "cam0"' '  encoding: "rgb8"' '  width: 4' \
  '  data: [0, 1, 2, 3, 4, 5, 6, 7, ...] (24 values)'; do
  grep -qF -- "$want" <<<"$out" || fail "echo: no '$want' in: $out"
done
err=$("$zcast" pub /typed/cli hello --count 1 2>&1) && fail "pub into a typed topic succeeded"
grep -q 'has type sensor_msgs/msg/Image.*--force' <<<"$err" || fail "pub: $err"
"$zcast" pub /typed/cli hello --count 1 --force || fail "pub --force"
echo "cli typed: ok"
