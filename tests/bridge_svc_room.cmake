# Service calls whose failure finds no room at the zcast client, and calls a zcast server refuses,
# through the bridge (tests/bridge/svc_room_test.sh, root): bridge_svc_room_fail_no_room,
# bridge_svc_room_refused. Uses bridge_svc.cmake's peers and idlc types (ZT_SVC).
if(TARGET zcast_bridge_cli AND ZT_IDLC AND TARGET svc_ros_peer AND TARGET svc_many_peer)
  add_executable(svc_room_peer ${ZT_SVC}/svc_room_peer.c)
  target_link_libraries(svc_room_peer PRIVATE zcast)
  target_compile_definitions(svc_room_peer PRIVATE _GNU_SOURCE)
  zcast_generate_messages(svc_room_peer TYPES example_interfaces/srv/AddTwoInts)
  foreach(scen fail_no_room refused)
    add_test(NAME bridge_svc_room_${scen} COMMAND ${ZT_SVC}/svc_room_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:svc_room_peer> $<TARGET_FILE:svc_ros_peer>
      $<TARGET_FILE:svc_many_peer> ${scen})
    set_tests_properties(bridge_svc_room_${scen} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
