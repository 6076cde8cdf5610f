# The bridge's pool of workers (tests/bridge/pool_test.sh): 200 routes on a bounded number of
# threads, every route delivering exactly once. Root and `ip netns` (skip 77 otherwise).
if(TARGET zcast_bridge_cli)
  add_executable(pool_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/pool_peer.c)
  target_include_directories(pool_peer PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/bridge)
  target_link_libraries(pool_peer PRIVATE zcast)
  target_compile_definitions(pool_peer PRIVATE _GNU_SOURCE)
  zcast_generate_messages(pool_peer TYPES sensor_msgs/Image)
  add_test(NAME bridge_pool COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/pool_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:pool_peer>)
  set_tests_properties(bridge_pool PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
