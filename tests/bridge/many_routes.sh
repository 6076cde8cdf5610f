# Config files of many routes for the pool tests (sourced after harness.sh's zbh_init):
#   zbh_many_routes <prefix> <routes> <threads>  writes $W/a.conf (zcast domain $DA, out routes) and
#   $W/b.conf ($DB, in routes): <prefix>/t0 .. t<routes-1>, sensor_msgs Image, reliable depth=16.
zbh_many_routes() {
  local h t
  for h in a b; do
    {
      echo "zcast_domain $([ $h = a ] && echo "$DA" || echo "$DB")"
      echo "threads $3"
      for t in $(seq 0 $(($2 - 1))); do
        echo "$([ $h = a ] && echo out || echo in) $1/t$t sensor_msgs/msg/Image reliable depth=16"
      done
    } > "$W/$h.conf"
  done
}
