# A bridge's volatile reliable out route (catchup=0) read by a default in route (tests/bridge/
# volatile_out_test.sh). Root and `ip netns` (skip 77 otherwise).
if(TARGET zcast_bridge_cli AND TARGET zb_peer)
  add_test(NAME bridge_volatile_out COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/volatile_out_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer>)
  set_tests_properties(bridge_volatile_out PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
