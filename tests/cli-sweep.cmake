# Branch cli-sweep. Every zcast command and option fed bad values (issue 25: exit status, one
# "ARGUMENT: what" line, no crash, nothing published).
add_test(NAME cli_sweep COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli_sweep/cli_sweep_test.py
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE_DIR:zcast_test_types>)
set_tests_properties(cli_sweep PROPERTIES TIMEOUT 120)
