# Record and replay (issue 24): a recording cut shorter (truncate) by another process while it is
# read. The reader reads with pread, never maps the file: an error "file: offset: what", no SIGBUS.
# record_bag_shrink: the C reader (tests/record/test_bag_shrink.c); record_play_shrink: zcast play
# (record_play_shrink_test.sh, with play_shrink_peer cutting the file at a set point of the replay);
# record_bag_shrink_py: zcast.BagFile / zcast.Bag, and their errors for a missing file.
set(ZT_RECORD_READ ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_executable(test_bag_shrink ${ZT_RECORD_READ}/test_bag_shrink.c)
target_link_libraries(test_bag_shrink PRIVATE zcast_bag)
target_compile_options(test_bag_shrink PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/record-shrink-out)
add_test(NAME record_bag_shrink COMMAND test_bag_shrink ${CMAKE_CURRENT_BINARY_DIR}/record-shrink-out)
set_tests_properties(record_bag_shrink PROPERTIES TIMEOUT 300)

add_executable(play_shrink_peer ${ZT_RECORD_READ}/play_shrink_peer.c)
target_link_libraries(play_shrink_peer PRIVATE zcast zcast_bag)
target_compile_options(play_shrink_peer PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_play_shrink COMMAND ${ZT_RECORD_READ}/record_play_shrink_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:play_shrink_peer>)
set_tests_properties(record_play_shrink PROPERTIES TIMEOUT 300)

if(TARGET zcast_python)
  add_test(NAME record_bag_shrink_py COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
    ${CMAKE_CURRENT_SOURCE_DIR}/python/bag_errors.py)
  set_tests_properties(record_bag_shrink_py PROPERTIES TIMEOUT 300 LABELS python
    ENVIRONMENT "${ZT_PY_ENV};ZT_SHRINK_PEER=$<TARGET_FILE:play_shrink_peer>"
    REQUIRED_FILES $<TARGET_FILE:zcast_python>)
endif()
