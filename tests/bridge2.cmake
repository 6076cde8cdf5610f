# Bridge, part 2 (issue 26): user types through run-time type libraries (tests/bridge/types_test.sh).
# Root and `ip netns` (skip 77 otherwise), Cyclone DDS and idlc.
if(TARGET zcast_bridge_cli AND ZT_IDLC)
  set(ZT_B2 ${CMAKE_CURRENT_SOURCE_DIR}/bridge)
  # A user's package (geometry_msgs/Twist, which zcast does not ship, and a type of its own), and
  # another definition of the same type name (its hash differs).
  zcast_add_type_library(zb_user_types TYPES geometry_msgs/Twist zcast_bridge_test/Reading
    ROOTS ${ZT_B2}/msg NO_INSTALL)
  set_target_properties(zb_user_types PROPERTIES LIBRARY_OUTPUT_DIRECTORY
    ${CMAKE_CURRENT_BINARY_DIR}/zb_user_types)
  zcast_add_type_library(zb_other_types TYPES zcast_bridge_test/Reading
    ROOTS ${ZT_B2}/msg_other NO_INSTALL)
  set_target_properties(zb_other_types PROPERTIES LIBRARY_OUTPUT_DIRECTORY
    ${CMAKE_CURRENT_BINARY_DIR}/zb_other_types)
  set(ZT_TWIST_IDL ${CMAKE_CURRENT_BINARY_DIR}/bridge_twist_idl)
  add_custom_command(OUTPUT ${ZT_TWIST_IDL}/twist.c ${ZT_TWIST_IDL}/twist.h
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ZT_TWIST_IDL}
    COMMAND ${ZT_IDLC} -o ${ZT_TWIST_IDL} ${ZT_B2}/twist.idl
    DEPENDS ${ZT_B2}/twist.idl COMMENT "idlc: twist.idl" VERBATIM)
  add_executable(twist_peer ${ZT_B2}/twist_peer.c ${ZT_TWIST_IDL}/twist.c)
  target_include_directories(twist_peer PRIVATE ${ZT_TWIST_IDL})
  target_link_libraries(twist_peer PRIVATE ${ZCAST_DDSC})
  set_target_properties(twist_peer PROPERTIES C_EXTENSIONS ON)
  add_test(NAME bridge_user_types COMMAND ${ZT_B2}/types_test.sh $<TARGET_FILE:zcast_bridge_cli>
    $<TARGET_FILE:zcast_cli> $<TARGET_FILE:twist_peer> $<TARGET_FILE_DIR:zb_user_types>
    $<TARGET_FILE_DIR:zb_other_types>)
  set_tests_properties(bridge_user_types PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77 RUN_SERIAL ON)
endif()
