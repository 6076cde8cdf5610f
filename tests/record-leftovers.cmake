# Leftovers of issue 24 (branch cleanup): record -o's path as written, joined with one '/'
# (tests/record/record_into_test.sh).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_test(NAME record_into COMMAND ${ZT_RECORD}/record_into_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_into PROPERTIES TIMEOUT 60)
