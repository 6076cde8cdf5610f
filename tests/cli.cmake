add_test(NAME cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/cli_test.sh $<TARGET_FILE:zcast_cli>)
set_tests_properties(cli PROPERTIES TIMEOUT 120)
