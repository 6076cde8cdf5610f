# The typed command line, part 2 (issue 25): zcast interface list/show, list --type (tests/typed/).
add_test(NAME typed_cli2 COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/typed/typed_cli2_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE_DIR:zcast_test_types>)
set_tests_properties(typed_cli2 PROPERTIES TIMEOUT 120)
