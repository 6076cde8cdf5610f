# Bridge findings of the issue 26 audit (tests/bridge/*_audit_test.sh). The config and descriptor
# tests need no root; the others skip (77) without root and `ip netns`.
if(TARGET zcast_bridge_cli)
  # <name> <script> [peer target]: a test bridge_<name>_audit running the script with the bridge
  # (and the peer program)
  function(zt_bridge_audit name script)
    set(peer)
    if(ARGN)
      set(peer $<TARGET_FILE:${ARGN}>)
    endif()
    add_test(NAME bridge_${name}_audit COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/${script}
      $<TARGET_FILE:zcast_bridge_cli> ${peer})
    set_tests_properties(bridge_${name}_audit PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77
      RUN_SERIAL ON)
  endfunction()
  zt_bridge_audit(config config_audit_test.sh)
  zt_bridge_audit(fds fds_audit_test.sh)
  zt_bridge_audit(svc_config svc_config_audit_test.sh)
  zt_bridge_audit(config_pool config_pool_audit_test.sh)

  add_executable(bad_zpub ${CMAKE_CURRENT_SOURCE_DIR}/bridge/bad_zpub.c)
  target_link_libraries(bad_zpub PRIVATE zcast)
  target_compile_definitions(bad_zpub PRIVATE _GNU_SOURCE)
  zcast_generate_messages(bad_zpub TYPES std_msgs/String)
  zt_bridge_audit(out_invalid out_invalid_audit_test.sh bad_zpub)

  add_executable(graph_raw_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/graph_raw_peer.c)
  target_include_directories(graph_raw_peer PRIVATE ${CMAKE_SOURCE_DIR}/bridge)
  target_link_libraries(graph_raw_peer PRIVATE zcast_bridge)
  set_target_properties(graph_raw_peer PROPERTIES C_EXTENSIONS ON)
  zt_bridge_audit(graph_race graph_race_audit_test.sh graph_raw_peer)

  if(ZT_IDLC)
    add_executable(qos_peer ${CMAKE_CURRENT_SOURCE_DIR}/bridge/qos_peer.c ${ZT_IDL_OUT}/ros_image.c)
    target_include_directories(qos_peer PRIVATE ${ZT_IDL_OUT})
    target_link_libraries(qos_peer PRIVATE ${ZCAST_DDSC})
    set_target_properties(qos_peer PROPERTIES C_EXTENSIONS ON)
    zt_bridge_audit(qos qos_audit_test.sh qos_peer)
  endif()
endif()
