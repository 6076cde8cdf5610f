# Record and replay, second round (issue 24): recordings of user types from type libraries
# (tests/record/record_types_test.sh); the Python reader of recordings is in tests/python.
# zcast_test_types and typed_user_pub are built by tests/typed_cli.cmake; the npm directory is
# record_mcap_js's (record_out serializes its installs).
add_test(NAME record_user_types COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/record_types_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:typed_user_pub> $<TARGET_FILE_DIR:zcast_test_types>
  ${CMAKE_CURRENT_BINARY_DIR}/record-types-out ${CMAKE_CURRENT_BINARY_DIR}/mcap-js)
set_tests_properties(record_user_types PROPERTIES TIMEOUT 400 SKIP_RETURN_CODE 77
  RESOURCE_LOCK record_out)
