# A receiving bridge whose claim announcement came late, killed and restarted, does not hold the
# sender back (tests/bridge/late_claim_test.sh). Test builds (ZCAST_BRIDGE_DELAY), root and
# `ip netns` (skip 77 otherwise).
if(TARGET zcast_bridge_cli AND TARGET zb_peer AND ZCAST_TEST_BUILD)
  add_test(NAME bridge_late_claim COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/late_claim_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer>)
  set_tests_properties(bridge_late_claim PROPERTIES TIMEOUT 150 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
