# Record and replay, second round (issue 24): recordings of user types from type libraries
# (tests/record/record_types_test.sh); the Python reader of recordings is in tests/python.
# zcast_test_types and typed_user_pub are built by tests/typed_cli.cmake; the npm directory is
# record_mcap_js's (record_out serializes its installs).
add_test(NAME record_user_types COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/record_types_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:typed_user_pub> $<TARGET_FILE_DIR:zcast_test_types>
  ${CMAKE_CURRENT_BINARY_DIR}/record-types-out ${CMAKE_CURRENT_BINARY_DIR}/mcap-js)
set_tests_properties(record_user_types PROPERTIES TIMEOUT 400 SKIP_RETURN_CODE 77
  RESOURCE_LOCK record_out)

# zcast.Bag, the Python reader of recordings (tests/python/bag_read.py): it runs the CLI, so it is
# registered here with the CLI's path rather than by tests/python.cmake's glob of test_*.py.
if(TARGET zcast_python)
  add_test(NAME python_bag_read COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider
    ${CMAKE_CURRENT_SOURCE_DIR}/python/bag_read.py)
  set_tests_properties(python_bag_read PROPERTIES TIMEOUT 600 LABELS python
    ENVIRONMENT "${ZT_PY_ENV};ZT_ZCAST=$<TARGET_FILE:zcast_cli>" REQUIRED_FILES $<TARGET_FILE:zcast_python>)
endif()

# New topics found by inotify, not by polling (tests/record/record_discovery_test.sh).
add_executable(late_pub ${CMAKE_CURRENT_SOURCE_DIR}/record/late_pub.c)
target_link_libraries(late_pub PRIVATE zcast)
target_compile_options(late_pub PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME record_discovery COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/record/record_discovery_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:late_pub> $<TARGET_FILE:bag_dump>
  ${CMAKE_CURRENT_BINARY_DIR}/record-discovery-out)
set_tests_properties(record_discovery PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
