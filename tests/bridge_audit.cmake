# Bridge findings of the issue 26 audit (tests/bridge/*_audit_test.sh). No root needed.
if(TARGET zcast_bridge_cli)
  add_test(NAME bridge_config_audit COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/config_audit_test.sh
    $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_config_audit PROPERTIES TIMEOUT 60)
endif()
if(TARGET zcast_bridge_cli)
  add_test(NAME bridge_fds_audit COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/fds_audit_test.sh
    $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_fds_audit PROPERTIES TIMEOUT 120)
endif()
