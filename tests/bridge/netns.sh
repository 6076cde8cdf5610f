# Two "hosts" for the bridge test and benchmark (sourced): network namespaces A and B joined by a
# veth pair (10.77.0.1 / 10.77.0.2), each with a multicast route on the veth, and Cyclone DDS told to
# use only that interface. zb_netns_up sets NA NB VA VB and the command prefixes inA / inB (arrays:
# "${inA[@]}" cmd & is one process, as ip netns exec and env exec in place, so $! is the program);
# zb_netns_down removes both namespaces (and with them the veth pair). $ZB_CYCLONE_XML, if set, is
# added inside the Domain element of both (a benchmark's Cyclone setting, the same for every peer).
zb_netns_up() { # <id>
  NA=zbA$1 NB=zbB$1 VA=zbva$1 VB=zbvb$1
  ip netns add "$NA" && ip netns add "$NB" || return 1
  ip link add "$VA" netns "$NA" type veth peer name "$VB" netns "$NB" || return 1
  ip -n "$NA" addr add 10.77.0.1/24 dev "$VA" && ip -n "$NB" addr add 10.77.0.2/24 dev "$VB" ||
    return 1
  local n
  for n in "$NA:$VA" "$NB:$VB"; do
    ip -n "${n%%:*}" link set lo up && ip -n "${n%%:*}" link set "${n#*:}" up &&
      ip -n "${n%%:*}" route add 224.0.0.0/4 dev "${n#*:}" || return 1
  done
  inA=(ip netns exec "$NA" env CYCLONEDDS_URI="$(zb_cyclone_uri "$VA")")
  inB=(ip netns exec "$NB" env CYCLONEDDS_URI="$(zb_cyclone_uri "$VB")")
}
zb_cyclone_uri() {
  echo "<CycloneDDS><Domain id=\"any\"><General><Interfaces><NetworkInterface name=\"$1\"/></Interfaces></General>${ZB_CYCLONE_XML:-}</Domain></CycloneDDS>"
}
zb_netns_down() {
  ip netns del "$NA" 2>/dev/null
  ip netns del "$NB" 2>/dev/null
}
# Skips (exit 77) unless root with a working `ip netns`.
zb_netns_check() {
  if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: needs root (it creates network namespaces)"; exit 77
  fi
  if ! command -v ip >/dev/null || ! ip netns list >/dev/null 2>&1; then
    echo "SKIP: 'ip netns' is unavailable (Debian package iproute2)"; exit 77
  fi
}
