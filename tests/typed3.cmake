# The typed command line, part 3 (issue 25): echo --csv (tests/typed/typed3_csv_test.sh) and bash
# completion (tests/typed/typed3_completion_test.sh).
add_test(NAME typed3_csv COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/typed/typed3_csv_test.sh
  $<TARGET_FILE:zcast_cli>)
set_tests_properties(typed3_csv PROPERTIES TIMEOUT 120)
add_test(NAME typed3_completion COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/typed/typed3_completion_test.sh
  $<TARGET_FILE:zcast_cli> ${PROJECT_SOURCE_DIR}/tools/completion/zcast.bash)
set_tests_properties(typed3_completion PROPERTIES TIMEOUT 120)
