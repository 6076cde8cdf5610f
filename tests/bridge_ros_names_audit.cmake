# The bridges' ROS 2 node names (audit of issue 26, tests/bridge/graph_names_audit_test.sh): a plain
# reader of ros_discovery_info, of the types bridge_once.cmake generates (ZT_GRAPH_IDL; this file
# sorts after it), and the helper of bridge_audit.cmake.
if(TARGET zcast_bridge_cli AND ZT_IDLC)
  add_executable(graph_names_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/graph_names_peer.c
    ${ZT_GRAPH_IDL}/ros_graph.c)
  target_include_directories(graph_names_peer PRIVATE ${ZT_GRAPH_IDL})
  target_link_libraries(graph_names_peer PRIVATE ${ZCAST_DDSC})
  zt_bridge_audit(graph_names graph_names_audit_test.sh graph_names_peer)
endif()
