# Typed correctness and the typed command line (issue 25; sources in tests/typed/).
set(ZT_TYPED_CLI ${CMAKE_CURRENT_SOURCE_DIR}/typed)

add_executable(test_typed_defaults ${ZT_TYPED_CLI}/test_typed_defaults.c)
target_link_libraries(test_typed_defaults PRIVATE zcast pthread)
target_compile_options(test_typed_defaults PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes
  -Wno-conversion)
target_compile_definitions(test_typed_defaults PRIVATE _GNU_SOURCE)
zcast_generate_messages(test_typed_defaults TYPES zcast_test/Defaults geometry_msgs/Quaternion
  sensor_msgs/Image sensor_msgs/Imu sensor_msgs/PointCloud2 ROOTS ${ZT_TYPED_CLI}/msg)
add_test(NAME typed_defaults COMMAND test_typed_defaults)
set_tests_properties(typed_defaults PROPERTIES TIMEOUT 120)

# Types at run time: a user's package as a type library, used by the tool without rebuilding it.
zcast_add_type_library(zcast_test_types TYPES zcast_test/Fixed zcast_test/Nested zcast_test/Defaults
  ROOTS ${ZT_TYPED_CLI}/msg NO_INSTALL)
set_target_properties(zcast_test_types PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/typed_types_lib)
add_executable(typed_user_pub ${ZT_TYPED_CLI}/typed_user_pub.c)
target_link_libraries(typed_user_pub PRIVATE zcast)
target_compile_options(typed_user_pub PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
target_compile_definitions(typed_user_pub PRIVATE _GNU_SOURCE)
zcast_generate_messages(typed_user_pub TYPES zcast_test/Fixed std_msgs/String ROOTS ${ZT_TYPED_CLI}/msg)
add_test(NAME typed_types COMMAND ${ZT_TYPED_CLI}/typed_types_test.sh $<TARGET_FILE:zcast_cli>
  $<TARGET_FILE:typed_user_pub> $<TARGET_FILE_DIR:zcast_test_types>)
set_tests_properties(typed_types PROPERTIES TIMEOUT 120)

add_test(NAME typed_pub COMMAND ${ZT_TYPED_CLI}/typed_pub_test.sh $<TARGET_FILE:zcast_cli>
  $<TARGET_FILE_DIR:zcast_test_types>)
set_tests_properties(typed_pub PROPERTIES TIMEOUT 120)

# make install: the packages GETTING_STARTED.md names, and no test programs built.
add_test(NAME install_build COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_build_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(install_build PROPERTIES TIMEOUT 300)

# The demo's per-second drop count (each drop once).
add_test(NAME demo_drops COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/demo_drops_test.sh $<TARGET_FILE:zcast_demo>)
set_tests_properties(demo_drops PROPERTIES TIMEOUT 120)

# zcast echo's (history) label; holds the open with ZCAST_PAUSE_AT (test builds only).
if(ZCAST_TEST_BUILD)
  add_test(NAME echo_history_label COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/echo_history_label_test.sh
    $<TARGET_FILE:zcast_cli>)
  set_tests_properties(echo_history_label PROPERTIES TIMEOUT 120)
endif()
