# The bridge's config file, the mistakes that used to pass in silence (tests/bridge/
# config_strict_test.sh): no root, no network.
if(TARGET zcast_bridge_cli)
  add_test(NAME bridge_config_strict COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/config_strict_test.sh
    $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_config_strict PROPERTIES TIMEOUT 60)
endif()
