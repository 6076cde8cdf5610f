# Record and replay, foreign recordings and late joiners (issue 24): a late recorder gets a
# topic's whole history (tests/record/record_history_test.sh). late_pub is record2.cmake's and
# bag_dump record.cmake's.
add_test(NAME record_history COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/record_history_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:late_pub> $<TARGET_FILE:bag_dump>
  ${CMAKE_CURRENT_BINARY_DIR}/record-history-out)
set_tests_properties(record_history PROPERTIES TIMEOUT 120)
