# The bridge (bridge/, docs/BRIDGE.md): two network namespaces, a zcast domain and a bridge in each
# (tests/bridge/bridge_test.sh). Needs root and `ip netns` (skips otherwise) and Cyclone DDS.
if(TARGET zcast_bridge_cli)
  find_program(ZT_IDLC idlc)
  set(ZT_BRIDGE ${CMAKE_CURRENT_SOURCE_DIR}/bridge)
  add_executable(zb_peer ${ZT_BRIDGE}/zb_peer.c)
  target_include_directories(zb_peer PRIVATE ${ZT_BRIDGE})
  target_link_libraries(zb_peer PRIVATE zcast)
  target_compile_definitions(zb_peer PRIVATE _GNU_SOURCE)
  zcast_generate_messages(zb_peer TYPES sensor_msgs/Image)
  if(ZT_IDLC)
    set(ZT_IDL_OUT ${CMAKE_CURRENT_BINARY_DIR}/bridge_idl)
    add_custom_command(OUTPUT ${ZT_IDL_OUT}/ros_image.c ${ZT_IDL_OUT}/ros_image.h
      COMMAND ${CMAKE_COMMAND} -E make_directory ${ZT_IDL_OUT}
      COMMAND ${ZT_IDLC} -o ${ZT_IDL_OUT} ${ZT_BRIDGE}/ros_image.idl
      DEPENDS ${ZT_BRIDGE}/ros_image.idl COMMENT "idlc: ros_image.idl" VERBATIM)
    add_executable(cyc_peer ${ZT_BRIDGE}/cyc_peer.c ${ZT_IDL_OUT}/ros_image.c)
    target_include_directories(cyc_peer PRIVATE ${ZT_BRIDGE} ${ZT_IDL_OUT})
    target_link_libraries(cyc_peer PRIVATE ${ZCAST_DDSC})
    set_target_properties(cyc_peer PROPERTIES C_EXTENSIONS ON)
    add_test(NAME bridge COMMAND ${ZT_BRIDGE}/bridge_test.sh $<TARGET_FILE:zcast_bridge_cli>
      $<TARGET_FILE:zb_peer> $<TARGET_FILE:cyc_peer> $<TARGET_FILE:zcast_cli>)
    set_tests_properties(bridge PROPERTIES TIMEOUT 180 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endif()
endif()
if(TARGET zcast_bridge_cli)
  add_test(NAME bridge_config COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/config_test.sh
    $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_config PROPERTIES TIMEOUT 60)
endif()
