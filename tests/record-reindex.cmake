# Repairing recordings (issue 24, branch rec-reindex): reindex refuses a piece a live recorder
# writes (tests/record/record_lock_test.sh), `zcast bag reindex DIR` after kill -9
# (record_reindex_dir_test.sh), attachments kept by reindex (test_bag_attach.c).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_test(NAME record_lock COMMAND ${ZT_RECORD}/record_lock_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_lock PROPERTIES TIMEOUT 120)
add_test(NAME record_reindex_dir COMMAND ${ZT_RECORD}/record_reindex_dir_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:bag_dump>)
set_tests_properties(record_reindex_dir PROPERTIES TIMEOUT 120)
add_executable(test_bag_attach ${ZT_RECORD}/test_bag_attach.c)
target_link_libraries(test_bag_attach PRIVATE zcast_bag)
target_compile_options(test_bag_attach PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_bag_attach COMMAND test_bag_attach)
set_tests_properties(record_bag_attach PROPERTIES TIMEOUT 60)
# The same file through npm's @mcap/core (the npm directory is record_mcap_js's: record_out
# serializes its installs).
add_test(NAME record_bag_attach_js COMMAND ${ZT_RECORD}/record_bag_attach_js_test.sh
  $<TARGET_FILE:test_bag_attach> ${CMAKE_CURRENT_BINARY_DIR}/mcap-js)
set_tests_properties(record_bag_attach_js PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77
  RESOURCE_LOCK record_out)
