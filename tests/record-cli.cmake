# zcast record / play / bag on the command line (issue 24, branch rec-cli): the output directory,
# any number of arguments, SIGHUP, nothing to play (tests/record/*_test.sh, one finding each).
set(ZT_RECORD ${CMAKE_CURRENT_SOURCE_DIR}/record)
add_test(NAME record_existing_dir COMMAND ${ZT_RECORD}/record_existing_dir_test.sh
  $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_existing_dir PROPERTIES TIMEOUT 60)
add_test(NAME record_outdir COMMAND ${ZT_RECORD}/record_outdir_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_outdir PROPERTIES TIMEOUT 60)
add_test(NAME record_many_args COMMAND ${ZT_RECORD}/record_many_args_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_many_args PROPERTIES TIMEOUT 60)
add_test(NAME record_hup COMMAND ${ZT_RECORD}/record_hup_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_hup PROPERTIES TIMEOUT 60)
add_test(NAME record_play_nothing COMMAND ${ZT_RECORD}/record_play_nothing_test.sh
  $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_play_nothing PROPERTIES TIMEOUT 120)
# metadata.yaml: empty lists, a failed write (tools/rec_files.c alone).
add_executable(test_rec_index ${ZT_RECORD}/test_rec_index.c ${PROJECT_SOURCE_DIR}/tools/rec_files.c
  ${PROJECT_SOURCE_DIR}/tools/cli_util.c)
target_include_directories(test_rec_index PRIVATE ${PROJECT_SOURCE_DIR}/tools
  ${PROJECT_SOURCE_DIR}/tools/bag ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_rec_index PRIVATE zcast)
target_compile_options(test_rec_index PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_index_yaml COMMAND test_rec_index)
set_tests_properties(record_index_yaml PROPERTIES TIMEOUT 60)
add_test(NAME record_progress COMMAND ${ZT_RECORD}/record_progress_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(record_progress PROPERTIES TIMEOUT 60)
