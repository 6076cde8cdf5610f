# Exactly once through the bridge (tests/bridge/once_test.sh): the delivery failures of issue 26,
# one ctest test per scenario. Root and `ip netns` (skip 77 otherwise), Cyclone DDS and idlc.
if(TARGET zcast_bridge_cli AND TARGET cyc_peer)
  foreach(scen two_pubs two_shm bidi takeover restart_in)
    add_test(NAME bridge_once_${scen} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/once_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer> $<TARGET_FILE:cyc_peer> ${scen})
    set_tests_properties(bridge_once_${scen} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
