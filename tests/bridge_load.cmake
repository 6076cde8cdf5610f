# Two bridges under CPU load, the receiving one descheduled for seconds while its topic is quiet
# (tests/bridge/load_test.sh): neither drops the other, every message of a stream written as the
# receiver resumes arrives, in order, within the hang detector's 60 s.
# Root and `ip netns` (skip 77 otherwise), Cyclone DDS.
if(TARGET zcast_bridge_cli AND TARGET zb_peer)
  add_test(NAME bridge_load COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/load_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer> 4096)
  set_tests_properties(bridge_load PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
