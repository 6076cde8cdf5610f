# The bridge's config file, the mistakes that used to pass in silence (tests/bridge/
# config_strict_test.sh): no root, no network.
if(TARGET zcast_bridge_cli)
  add_test(NAME bridge_config_strict COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/config_strict_test.sh
    $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_config_strict PROPERTIES TIMEOUT 120)
endif()
# A bridge standing by for 200 topics on a bounded number of threads, taking them all over when the
# active one is killed, also one in another PID namespace, also two standbys in turn, also topics
# held the old way (the claim lock alone)
# (tests/bridge/standby_test.sh). Root and `ip netns` (skip 77 otherwise).
if(TARGET zcast_bridge_cli AND TARGET pool_peer)
  add_test(NAME bridge_standby COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/standby_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:pool_peer> plain)
  set_tests_properties(bridge_standby PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  foreach(scen pidns chain nomarker)
    add_test(NAME bridge_standby_${scen} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/standby_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:pool_peer> ${scen})
    set_tests_properties(bridge_standby_${scen} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77
      RUN_SERIAL ON)
  endforeach()
endif()
