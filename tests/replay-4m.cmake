# Replay timing (issue 24, branch replay-4m): zcast play prepares every message before its time,
# with its files opened before the clock starts; order, bytes, --rate, --start-offset and --loop
# from a subscriber, no timing threshold (tests/record/play_ahead.c).
add_executable(play_ahead ${CMAKE_CURRENT_SOURCE_DIR}/record/play_ahead.c)
target_link_libraries(play_ahead PRIVATE zcast zcast_bag)
target_compile_options(play_ahead PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_play_ahead COMMAND play_ahead $<TARGET_FILE:zcast_cli>
  ${CMAKE_CURRENT_BINARY_DIR}/play-ahead-out)
set_tests_properties(record_play_ahead PROPERTIES TIMEOUT 120)
