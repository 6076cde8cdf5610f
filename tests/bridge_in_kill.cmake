# A receiving bridge killed at each step of delivering a sample, then restarted: exactly once
# (tests/bridge/in_kill_test.sh). Needs the crash points of a test build, root and `ip netns`.
if(TARGET zcast_bridge_cli AND TARGET zb_peer AND ZCAST_TEST_BUILD)
  foreach(point in:before-loan in:after-loan publish:after-intent publish:after-state
          publish:after-push publish:before-wake in:after-publish)
    string(REGEX REPLACE "[:-]" "_" name ${point})
    add_test(NAME bridge_in_kill_${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/in_kill_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer> ${point})
    set_tests_properties(bridge_in_kill_${name} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
  # a standby on B takes over from the killed bridge (its successor opens the route at the grant)
  foreach(point publish:after-push in:after-publish)
    string(REGEX REPLACE "[:-]" "_" name ${point})
    add_test(NAME bridge_in_kill_standby_${name}
      COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/in_kill_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer> ${point} standby)
    set_tests_properties(bridge_in_kill_standby_${name} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
