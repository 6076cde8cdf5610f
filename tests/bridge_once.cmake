# Exactly once through the bridge (tests/bridge/once_test.sh): the delivery failures of issue 26,
# one ctest test per scenario. Root and `ip netns` (skip 77 otherwise), Cyclone DDS and idlc.
if(TARGET zcast_bridge_cli AND TARGET cyc_peer)
  foreach(scen two_pubs two_shm bidi takeover restart_in lenient invalid)
    add_test(NAME bridge_once_${scen} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/once_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:zb_peer> $<TARGET_FILE:cyc_peer> ${scen})
    set_tests_properties(bridge_once_${scen} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
# The rewriting of received samples into zcast's form (big endian, 0-length strings): no root.
if(TARGET zcast_bridge)
  add_executable(test_bridge_normalize ${CMAKE_CURRENT_SOURCE_DIR}/bridge/test_normalize.c)
  target_include_directories(test_bridge_normalize PRIVATE ${CMAKE_SOURCE_DIR}/bridge)
  target_link_libraries(test_bridge_normalize PRIVATE zcast_bridge)
  set_target_properties(test_bridge_normalize PROPERTIES C_EXTENSIONS ON)
  zcast_generate_messages(test_bridge_normalize TYPES sensor_msgs/Image std_msgs/String)
  add_test(NAME bridge_normalize COMMAND test_bridge_normalize)
endif()
# A raw DDS writer (big endian, unannounced padding) for the leniency scenario of once_test.sh.
if(TARGET zcast_bridge)
  add_executable(raw_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/raw_peer.c)
  target_include_directories(raw_peer PRIVATE ${CMAKE_SOURCE_DIR}/bridge ${CMAKE_CURRENT_SOURCE_DIR}/bridge)
  target_link_libraries(raw_peer PRIVATE zcast_bridge)
  set_target_properties(raw_peer PROPERTIES C_EXTENSIONS ON)
endif()
# A plain Cyclone reader of ros_discovery_info (the bridge as a ROS 2 node) for graph_test.sh.
if(TARGET zcast_bridge_cli AND ZT_IDLC)
  set(ZT_GRAPH_IDL ${CMAKE_CURRENT_BINARY_DIR}/bridge_graph_idl)
  add_custom_command(OUTPUT ${ZT_GRAPH_IDL}/ros_graph.c ${ZT_GRAPH_IDL}/ros_graph.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ZT_GRAPH_IDL}
    COMMAND ${ZT_IDLC} -o ${ZT_GRAPH_IDL} ${CMAKE_CURRENT_SOURCE_DIR}/bridge/ros_graph.idl
    DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bridge/ros_graph.idl COMMENT "idlc: ros_graph.idl" VERBATIM)
  add_executable(graph_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/graph_peer.c ${ZT_GRAPH_IDL}/ros_graph.c)
  target_include_directories(graph_peer PRIVATE ${ZT_GRAPH_IDL})
  target_link_libraries(graph_peer PRIVATE ${ZCAST_DDSC})
  set_target_properties(graph_peer PROPERTIES C_EXTENSIONS ON)
  add_test(NAME bridge_graph COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/graph_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:graph_peer>)
  set_tests_properties(bridge_graph PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
