# Record and replay (issue 24): the MCAP library of the tool (tools/bag), its fuzzed reader, and
# zcast record / play / bag end to end (tests/record/).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_executable(test_bag ${ZT_RECORD}/test_bag.c)
target_link_libraries(test_bag PRIVATE zcast_bag)
target_compile_options(test_bag PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_bag COMMAND test_bag)
set_tests_properties(record_bag PROPERTIES TIMEOUT 600)

# The reader fuzzed: the corpus replayed by every test run (any compiler); with clang,
# `cmake --build <dir> --target fuzz_bag_run` fuzzes for ZCAST_FUZZ_SECONDS.
add_executable(record_fuzz_replay ${ZT_RECORD}/fuzz_bag.c ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay.c)
target_link_libraries(record_fuzz_replay PRIVATE zcast_bag)
target_compile_definitions(record_fuzz_replay PRIVATE ZCAST_FUZZ_CORPUS="${ZT_RECORD}/corpus")
add_test(NAME record_fuzz_replay COMMAND record_fuzz_replay)
set_tests_properties(record_fuzz_replay PROPERTIES TIMEOUT 300)
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  file(GLOB ZT_BAG_SOURCES ${PROJECT_SOURCE_DIR}/tools/bag/*.c)
  add_executable(fuzz_bag EXCLUDE_FROM_ALL ${ZT_RECORD}/fuzz_bag.c ${ZT_BAG_SOURCES})
  target_include_directories(fuzz_bag PRIVATE ${PROJECT_SOURCE_DIR}/tools/bag)
  target_compile_options(fuzz_bag PRIVATE -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  target_link_options(fuzz_bag PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_bag PRIVATE PkgConfig::ZCAST_BAG_DEPS pthread)
  add_custom_target(fuzz_bag_run
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/fuzz-bag-work
    COMMAND fuzz_bag -max_total_time=${ZCAST_FUZZ_SECONDS} -timeout=30 -print_final_stats=1
      -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz-bag- ${CMAKE_CURRENT_BINARY_DIR}/fuzz-bag-work
      ${ZT_RECORD}/corpus
    DEPENDS fuzz_bag USES_TERMINAL)
endif()

# End to end: record -> play -> record, drops, kill -9 + reindex, bad input (record_test.sh).
add_executable(rec_peer ${ZT_RECORD}/rec_peer.c)
target_link_libraries(rec_peer PRIVATE zcast)
target_compile_options(rec_peer PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes -Wno-conversion)
zcast_generate_messages(rec_peer TYPES sensor_msgs/Image std_msgs/String ROOTS ${PROJECT_SOURCE_DIR}/msg)
add_executable(bag_dump ${ZT_RECORD}/bag_dump.c)
target_link_libraries(bag_dump PRIVATE zcast_bag)
target_compile_options(bag_dump PRIVATE ${ZCAST_WARNINGS})
set(ZT_RECORD_OUT ${CMAKE_CURRENT_BINARY_DIR}/record-out)
add_test(NAME record_cli COMMAND ${ZT_RECORD}/record_test.sh $<TARGET_FILE:zcast_cli>
  $<TARGET_FILE:rec_peer> $<TARGET_FILE:bag_dump> ${ZT_RECORD_OUT})
set_tests_properties(record_cli PROPERTIES TIMEOUT 300 FIXTURES_SETUP record_files
  RESOURCE_LOCK record_out)

# The same files through an independent reader (npm's @mcap/core, run by Debian's nodejs).
add_test(NAME record_mcap_js COMMAND ${ZT_RECORD}/mcap_js_test.sh ${ZT_RECORD_OUT}
  ${CMAKE_CURRENT_BINARY_DIR}/mcap-js)
set_tests_properties(record_mcap_js PROPERTIES TIMEOUT 400 SKIP_RETURN_CODE 77
  FIXTURES_REQUIRED record_files RESOURCE_LOCK record_out)
