# Replies and requests the bridge cannot hand over at once (tests/bridge/svc_reply_test.sh, root):
# bridge_svc_reply_readerless, _full, _leave, _stay, _room, _queue_full. Uses bridge_svc.cmake's
# peers and idlc types (ZT_SVC, ZT_SVC_IDL).
if(TARGET zcast_bridge_cli AND ZT_IDLC AND TARGET svc_zpeer AND TARGET svc_ros_peer AND TARGET svc_many_peer)
  add_executable(svc_reply_peer ${ZT_SVC}/svc_reply_peer.c ${ZT_SVC_IDL}/ros_add.c)
  target_include_directories(svc_reply_peer PRIVATE ${ZT_SVC_IDL})
  target_link_libraries(svc_reply_peer PRIVATE ${ZCAST_DDSC})
  set_target_properties(svc_reply_peer PROPERTIES C_EXTENSIONS ON)
  foreach(scen readerless full leave stay room queue_full)
    add_test(NAME bridge_svc_reply_${scen} COMMAND ${ZT_SVC}/svc_reply_test.sh
      $<TARGET_FILE:zcast_bridge_cli> $<TARGET_FILE:svc_zpeer> $<TARGET_FILE:svc_reply_peer>
      $<TARGET_FILE:svc_ros_peer> $<TARGET_FILE:svc_many_peer> ${scen})
    set_tests_properties(bridge_svc_reply_${scen} PROPERTIES TIMEOUT 90 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
  endforeach()
endif()
