# zcast play's spin before each message's time (issue 24: tools/play_spin.c, play_clock.c).
add_executable(test_play_spin ${CMAKE_CURRENT_SOURCE_DIR}/record/test_play_spin.c
  ${PROJECT_SOURCE_DIR}/tools/play_spin.c ${PROJECT_SOURCE_DIR}/tools/play_clock.c)
target_include_directories(test_play_spin PRIVATE ${PROJECT_SOURCE_DIR}/tools
  ${CMAKE_CURRENT_SOURCE_DIR})
target_link_libraries(test_play_spin PRIVATE zcast)
target_compile_options(test_play_spin PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_play_spin COMMAND test_play_spin)
set_tests_properties(record_play_spin PROPERTIES TIMEOUT 60)
