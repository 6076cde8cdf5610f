# Record and replay, foreign recordings and late joiners (issue 24): a late recorder gets a
# topic's whole history (tests/record/record_history_test.sh). late_pub is record2.cmake's and
# bag_dump record.cmake's.
add_test(NAME record_history COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/record_history_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:late_pub> $<TARGET_FILE:bag_dump>
  ${CMAKE_CURRENT_BINARY_DIR}/record-history-out)
set_tests_properties(record_history PROPERTIES TIMEOUT 120)

# Recordings made by rosbag2 (no zcast keys; Jazzy's QoS by name with topic_type_hash, Humble's as
# rmw enum numbers without): played with the type zcast knows, or untyped, and with the history
# of the QoS (tests/record/record_foreign_test.sh; foreign_bag.c writes the files).
add_executable(foreign_bag ${CMAKE_CURRENT_SOURCE_DIR}/record/foreign_bag.c)
target_link_libraries(foreign_bag PRIVATE zcast_bag zcast)
target_compile_options(foreign_bag PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
zcast_generate_messages(foreign_bag TYPES std_msgs/String ROOTS ${PROJECT_SOURCE_DIR}/msg)
add_test(NAME record_foreign COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/record_foreign_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:foreign_bag> ${CMAKE_CURRENT_BINARY_DIR}/record-foreign-out)
set_tests_properties(record_foreign PROPERTIES TIMEOUT 120)

# A file named like a topic that is none: looked at again with a backoff, named once
# (tests/record/record_junk_test.sh).
add_test(NAME record_junk COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/record_junk_test.sh
  $<TARGET_FILE:zcast_cli> ${CMAKE_CURRENT_BINARY_DIR}/record-junk-out)
set_tests_properties(record_junk PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)

# zcast bag info (and --json) on rosbag2's recordings: drops unknown, not 0
# (tests/record/bag_info_test.sh).
add_test(NAME record_bag_info COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/bag_info_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:foreign_bag> $<TARGET_FILE:late_pub>
  ${CMAKE_CURRENT_BINARY_DIR}/record-bag-info-out)
set_tests_properties(record_bag_info PROPERTIES TIMEOUT 120)
