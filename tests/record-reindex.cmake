# Repairing recordings (issue 24, branch rec-reindex): reindex refuses a piece a live recorder
# writes (tests/record/record_lock_test.sh), `zcast bag reindex DIR` after kill -9
# (record_reindex_dir_test.sh), attachments kept by reindex (test_bag_attach.c).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_test(NAME record_lock COMMAND ${ZT_RECORD}/record_lock_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_lock PROPERTIES TIMEOUT 120)
add_test(NAME record_reindex_dir COMMAND ${ZT_RECORD}/record_reindex_dir_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:bag_dump>)
set_tests_properties(record_reindex_dir PROPERTIES TIMEOUT 120)
