# The two-host replay of the bridge (bench/bridge_replay.sh), short: 20 topics of the container graph
# (every one small and crossing between the hosts) for 4 s through one bridge per host; fails if a
# reliable route lost, duplicated or mangled a message. Root and `ip netns` (skip 77 otherwise).
if(TARGET zcast-bench-bridge-replay AND TARGET zcast_bridge_cli)
  add_test(NAME bridge_replay COMMAND ${CMAKE_SOURCE_DIR}/bench/bridge_replay.sh ${CMAKE_BINARY_DIR}
    --topics 20 --duration 4 --drain 10 --only zcast --test)
  set_tests_properties(bridge_replay PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
