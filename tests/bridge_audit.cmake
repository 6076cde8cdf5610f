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
if(TARGET zcast_bridge_cli AND ZT_IDLC)
  add_executable(qos_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/qos_peer.c ${ZT_IDL_OUT}/ros_image.c)
  target_include_directories(qos_peer PRIVATE ${ZT_IDL_OUT})
  target_link_libraries(qos_peer PRIVATE ${ZCAST_DDSC})
  set_target_properties(qos_peer PROPERTIES C_EXTENSIONS ON)
  add_test(NAME bridge_qos_audit COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/qos_audit_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:qos_peer>)
  set_tests_properties(bridge_qos_audit PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
if(TARGET zcast_bridge_cli)
  add_executable(bad_zpub ${CMAKE_CURRENT_SOURCE_DIR}/bridge/bad_zpub.c)
  target_link_libraries(bad_zpub PRIVATE zcast)
  target_compile_definitions(bad_zpub PRIVATE _GNU_SOURCE)
  zcast_generate_messages(bad_zpub TYPES std_msgs/String)
  add_test(NAME bridge_out_invalid_audit
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/out_invalid_audit_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:bad_zpub>)
  set_tests_properties(bridge_out_invalid_audit PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77
    RUN_SERIAL ON)
endif()
if(TARGET zcast_bridge_cli)
  add_executable(graph_raw_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/graph_raw_peer.c)
  target_include_directories(graph_raw_peer PRIVATE ${CMAKE_SOURCE_DIR}/bridge)
  target_link_libraries(graph_raw_peer PRIVATE zcast_bridge)
  set_target_properties(graph_raw_peer PROPERTIES C_EXTENSIONS ON)
  add_test(NAME bridge_graph_race_audit
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/graph_race_audit_test.sh
    $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:graph_raw_peer>)
  set_tests_properties(bridge_graph_race_audit PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77
    RUN_SERIAL ON)
endif()
