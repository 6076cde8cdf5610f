# Recorder speed and split files (issue 24, branch record-rate): pieces opened ahead and closed
# behind under a steady load (tests/record/record_split_test.sh), and a split recording played
# only after every piece was checked (tests/record/record_play_split_test.sh).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_executable(split_check ${ZT_RECORD}/split_check.c ${ZT_RECORD}/pieces_check.c)
target_link_libraries(split_check PRIVATE zcast_bag)
target_compile_options(split_check PRIVATE ${ZCAST_WARNINGS})
add_test(NAME record_split_ahead COMMAND ${ZT_RECORD}/record_split_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:split_check>)
set_tests_properties(record_split_ahead PROPERTIES TIMEOUT 120)
add_test(NAME record_play_split COMMAND ${ZT_RECORD}/record_play_split_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:split_check>)
set_tests_properties(record_play_split PROPERTIES TIMEOUT 120)
