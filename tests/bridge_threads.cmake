# One bridge, hundreds of routes, a fixed number of threads (tests/bridge/many_test.sh). Root and
# `ip netns` (skip 77 otherwise), Cyclone DDS.
if(TARGET zcast_bridge_cli AND TARGET zb_peer)
  add_test(NAME bridge_many_routes COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/many_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer>)
  set_tests_properties(bridge_many_routes PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
