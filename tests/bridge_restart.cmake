# A restarted receiving bridge does not hold the sender back (tests/bridge/restart_test.sh): the
# sending bridge drops the dead one's participant when the new one announces itself. Root and
# `ip netns` (skip 77 otherwise), Cyclone DDS.
if(TARGET zcast_bridge_cli AND TARGET zb_peer)
  foreach(scen recv bidi standby)
    add_test(NAME bridge_once_restart_${scen} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/restart_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer> ${scen})
    set_tests_properties(bridge_once_restart_${scen} PROPERTIES TIMEOUT 150 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
