#!/usr/bin/env bash
# Recordings that rosbag2 made (no zcast keys in their channels) played by `zcast play`:
#  - a type zcast knows (std_msgs/msg/String) is published with zcast's RIHS01 hash, so a typed
#    subscriber (zcast echo) decodes it: Humble's files carry no hash at all;
#  - a type zcast does not know (my_pkg/msg/Odd), or a file's hash that is not zcast's, is
#    published untyped; play says per topic which it did;
#  - a transient-local topic gets the history depth of its offered_qos_profiles: by name
#    (Jazzy: keep_last, depth 5, transient_local) and as rmw enum numbers (Humble: history 1,
#    depth 3, durability 1).
# Usage: record_foreign_test.sh ZCAST FOREIGN_BAG OUT_DIR
set -euo pipefail
zcast=$1 foreign=$2 out=$3
. "$(dirname "$0")/../zt_scene.sh"
scene trforeign
fresh_dir "$out"

# play FILE: plays it in a loop (slowly: 100 ms between messages) until the topics are there.
play() {
  "$zcast" play --loop --rate 0.01 "$1" 2>"$out/play.err" &
  player=$!
  for _ in $(seq 100); do
    "$zcast" info /odd 2>/dev/null | grep -q "^  pub" && return 0
    sleep 0.05
  done
  fail "play $1: no publisher: $(cat "$out/play.err")"
}
stop() { kill -INT "$player"; wait "$player" || fail "play exited $?: $(cat "$out/play.err")"; }
has() { grep -qF -- "$2" <<<"$1" || fail "$3: no '$2' in: $1"; }

for dist in jazzy humble; do
  "$foreign" "$dist" "$out/$dist.mcap" || fail "foreign_bag $dist"
  play "$out/$dist.mcap"
  depth=5
  [ "$dist" = jazzy ] || depth=3
  info=$("$zcast" info /chatter)
  has "$info" "type:         std_msgs/msg/String (hash RIHS01_df668c74" "$dist: info /chatter"
  grep -q "^  pub .*history $depth " <<<"$info" || fail "$dist: /chatter not history $depth: $info"
  got=$(timeout 20 "$zcast" echo /chatter --count 1 2>&1) || fail "$dist: echo /chatter: $got"
  has "$got" 'data: "hello ' "$dist: echo /chatter"
  has "$("$zcast" info /odd)" "type:         (untyped)" "$dist: info /odd"
  grep -q "^  pub .*history 0 " <<<"$("$zcast" info /odd)" || fail "$dist: /odd has history"
  stop
  err=$(cat "$out/play.err")
  has "$err" "zcast play: /chatter: typed std_msgs/msg/String (RIHS01_df668c74" "$dist: play said"
  has "$err" "zcast play: /odd: untyped (type my_pkg/msg/Odd is neither shipped nor" "$dist: play said"
done
has "$err" "/other: typed std_msgs/msg/String" "humble: play said (no hash in the file)"
"$zcast" play --rate 100 "$out/jazzy.mcap" 2>"$out/play.err" || fail "play jazzy once"
has "$(cat "$out/play.err")" "/other: untyped (type std_msgs/msg/String: the file has RIHS01_0011" \
  "jazzy: play said (another hash)"
echo "record_foreign: Jazzy- and Humble-style recordings played typed, untyped and with history"
