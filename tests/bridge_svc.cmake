# Services over DDS through the bridge (issue 26, docs/BRIDGE.md "Services"): tests/bridge/svc_test.sh,
# one ctest test per scenario, between two network namespaces (root and `ip netns`, else skip 77),
# with a zcast peer, a plain Cyclone DDS peer in ROS 2's wire form (idlc types) and a raw one.
if(TARGET zcast_bridge_cli AND ZT_IDLC)
  set(ZT_SVC ${CMAKE_CURRENT_SOURCE_DIR}/bridge)
  add_executable(svc_zpeer ${ZT_SVC}/svc_zpeer.c)
  target_link_libraries(svc_zpeer PRIVATE zcast)
  target_compile_definitions(svc_zpeer PRIVATE _GNU_SOURCE)
  zcast_generate_messages(svc_zpeer TYPES example_interfaces/srv/AddTwoInts)
  set(ZT_SVC_IDL ${CMAKE_CURRENT_BINARY_DIR}/bridge_svc_idl)
  add_custom_command(OUTPUT ${ZT_SVC_IDL}/ros_add.c ${ZT_SVC_IDL}/ros_add.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ZT_SVC_IDL}
    COMMAND ${ZT_IDLC} -o ${ZT_SVC_IDL} ${ZT_SVC}/ros_add.idl
    DEPENDS ${ZT_SVC}/ros_add.idl COMMENT "idlc: ros_add.idl" VERBATIM)
  add_executable(svc_ros_peer ${ZT_SVC}/svc_ros_peer.c ${ZT_SVC_IDL}/ros_add.c)
  target_include_directories(svc_ros_peer PRIVATE ${ZT_SVC_IDL})
  target_link_libraries(svc_ros_peer PRIVATE ${ZCAST_DDSC})
  set_target_properties(svc_ros_peer PROPERTIES C_EXTENSIONS ON)
  add_executable(svc_raw_peer ${ZT_SVC}/svc_raw_peer.c)
  target_include_directories(svc_raw_peer PRIVATE ${CMAKE_SOURCE_DIR}/bridge)
  target_link_libraries(svc_raw_peer PRIVATE zcast_bridge)
  set_target_properties(svc_raw_peer PROPERTIES C_EXTENSIONS ON)
  foreach(scen zcast ros_server ros_client bad)
    add_test(NAME bridge_svc_${scen} COMMAND ${ZT_SVC}/svc_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:svc_zpeer> $<TARGET_FILE:svc_ros_peer>
      $<TARGET_FILE:svc_raw_peer> ${scen})
    set_tests_properties(bridge_svc_${scen} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
# The "service" config lines (no root).
if(TARGET zcast_bridge_cli)
  add_test(NAME bridge_svc_config COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bridge/svc_config_test.sh
    $<TARGET_FILE:zcast_bridge_cli>)
  set_tests_properties(bridge_svc_config PROPERTIES TIMEOUT 60)
endif()
# Many DDS clients, a zcast server that never answers, a server answering bursts
# (tests/bridge/svc_more_test.sh, root): bridge_svc_many_clients, _unanswered, _burst.
if(TARGET zcast_bridge_cli AND ZT_IDLC)
  add_executable(svc_many_peer ${ZT_SVC}/svc_many_peer.c ${ZT_SVC_IDL}/ros_add.c)
  target_include_directories(svc_many_peer PRIVATE ${ZT_SVC_IDL})
  target_link_libraries(svc_many_peer PRIVATE ${ZCAST_DDSC})
  set_target_properties(svc_many_peer PROPERTIES C_EXTENSIONS ON)
  foreach(scen many_clients unanswered burst)
    add_test(NAME bridge_svc_${scen} COMMAND ${ZT_SVC}/svc_more_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:svc_zpeer> $<TARGET_FILE:svc_ros_peer>
      $<TARGET_FILE:svc_many_peer> ${scen})
    set_tests_properties(bridge_svc_${scen} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
