# Recorder speed (issue 24, branch record-perf): the folded CRC-32 against zlib's, and uncompressed
# chunks streamed to the file (a file cut inside an open chunk read by our reader and by the
# independent one).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_executable(test_bag_crc ${ZT_RECORD}/test_bag_crc.c)
target_link_libraries(test_bag_crc PRIVATE zcast_bag)
target_compile_options(test_bag_crc PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_bag_crc COMMAND test_bag_crc)

add_executable(test_bag_direct ${ZT_RECORD}/test_bag_direct.c)
target_link_libraries(test_bag_direct PRIVATE zcast_bag)
target_compile_options(test_bag_direct PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_bag_direct COMMAND test_bag_direct)
# The files it leaves (one cut inside an open chunk, one reindexed) through @mcap/core.
add_test(NAME record_direct_js COMMAND ${ZT_RECORD}/direct_js_test.sh $<TARGET_FILE:test_bag_direct>
  ${CMAKE_CURRENT_BINARY_DIR}/record-direct-out ${CMAKE_CURRENT_BINARY_DIR}/mcap-js)
set_tests_properties(record_direct_js PROPERTIES TIMEOUT 400 SKIP_RETURN_CODE 77
  RESOURCE_LOCK record_out)
