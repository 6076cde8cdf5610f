# Services (issue 23): the unit tests are tests/svc/test_*.c (globbed by tests/CMakeLists.txt);
# here the example, run as a user would.
add_test(NAME example_service COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/examples_test.sh service
         $<TARGET_FILE_DIR:example_publisher>)
set_tests_properties(example_service PROPERTIES TIMEOUT 60)
