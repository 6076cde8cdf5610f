# The typed command line, part 3 (issue 25): zcast echo --csv (tests/typed/typed_csv_test.sh).
add_test(NAME typed_csv COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/typed/typed_csv_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE_DIR:zcast_test_types>)
set_tests_properties(typed_csv PROPERTIES TIMEOUT 120)
# Bash completion (tools/completion/zcast.bash).
add_test(NAME zcast_completion COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/typed/completion_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE_DIR:zcast_test_types>
  ${PROJECT_SOURCE_DIR}/tools/completion/zcast.bash)
set_tests_properties(zcast_completion PROPERTIES TIMEOUT 120)
# zcast delay from a std_msgs/Header stamp (tests/typed/typed_delay_test.sh).
add_test(NAME typed_delay COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/typed/typed_delay_test.sh
  $<TARGET_FILE:zcast_cli>)
set_tests_properties(typed_delay PROPERTIES TIMEOUT 120)
