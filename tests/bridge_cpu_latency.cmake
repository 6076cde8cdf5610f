# "cpu_latency_us N" (docs/BRIDGE.md, "Cost and latency"): the config line (no root, no network) and
# the request held on /dev/cpu_dma_latency while a bridge runs, dropped when it stops or is killed
# (root and `ip netns`, skip 77 otherwise).
if(TARGET zcast_bridge_cli)
  add_test(NAME bridge_cpu_latency_config COMMAND
    ${CMAKE_CURRENT_SOURCE_DIR}/bridge/cpu_latency_config_test.sh $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_cpu_latency_config PROPERTIES TIMEOUT 60)
  add_test(NAME bridge_cpu_latency COMMAND
    ${CMAKE_CURRENT_SOURCE_DIR}/bridge/cpu_latency_test.sh $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_cpu_latency PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
