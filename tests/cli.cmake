# The zcast command-line tool, end to end (tests/cli_test.sh), with a peer process for the members
# the tool cannot be itself (a FULL subscriber, a typed publisher).
add_executable(cli_peer ${CMAKE_CURRENT_SOURCE_DIR}/cli/cli_peer.c)
target_link_libraries(cli_peer PRIVATE zcast)
target_compile_options(cli_peer PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh $<TARGET_FILE:zcast_cli>
  $<TARGET_FILE:cli_peer>)
set_tests_properties(cli PROPERTIES TIMEOUT 240)
