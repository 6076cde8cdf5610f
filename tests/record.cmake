# Record and replay (issue 24): the MCAP library of the tool (tools/bag), its fuzzed reader, and
# zcast record / play / bag end to end (tests/record/).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_executable(test_bag ${ZT_RECORD}/test_bag.c)
target_link_libraries(test_bag PRIVATE zcast_bag)
target_compile_options(test_bag PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_bag COMMAND test_bag)
set_tests_properties(record_bag PROPERTIES TIMEOUT 600)
