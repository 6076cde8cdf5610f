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
