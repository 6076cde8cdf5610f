# `zcast service list | info | call`, services in `zcast list --json` and `zcast doctor` (issue 23,
# branch svc-typed): tests/svc/svc_cli_test.sh against a typed server (tests/svc/svc_cli_server.c).
add_executable(svc_cli_server ${CMAKE_CURRENT_SOURCE_DIR}/svc/svc_cli_server.c)
target_link_libraries(svc_cli_server PRIVATE zcast)
target_compile_options(svc_cli_server PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes
  -Wno-conversion)
target_compile_definitions(svc_cli_server PRIVATE _GNU_SOURCE)
zcast_generate_messages(svc_cli_server TYPES example_interfaces/srv/AddTwoInts std_srvs/srv/SetBool)
add_test(NAME svc_cli COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/svc/svc_cli_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:svc_cli_server>)
set_tests_properties(svc_cli PROPERTIES TIMEOUT 300)

# The Python service example (examples/add_two_ints.py), run as a user runs it.
if(TARGET zcast_python)
  add_test(NAME example_python_service COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/svc/examples_svc_test.sh
    python ${PROJECT_SOURCE_DIR}/examples ${CMAKE_BINARY_DIR}/python)
  set_tests_properties(example_python_service PROPERTIES TIMEOUT 120 ENVIRONMENT "${ZT_PY_ENV}")
endif()

# The C++ service layer (zcast.hpp client/server), with the stricter warnings of tests/cpp.cmake.
if(CMAKE_CXX_COMPILER)
  add_executable(test_cpp_svc ${CMAKE_CURRENT_SOURCE_DIR}/svc/test_cpp_svc.cpp)
  target_link_libraries(test_cpp_svc PRIVATE zcast)
  target_compile_options(test_cpp_svc PRIVATE -Wall -Wextra -Werror -Wshadow -Wpedantic
    -Wconversion -Wsign-conversion -Wold-style-cast)
  zcast_generate_messages(test_cpp_svc TYPES std_srvs/srv/SetBool std_srvs/srv/Trigger)
  add_test(NAME cpp_services COMMAND test_cpp_svc)
  set_tests_properties(cpp_services PROPERTIES TIMEOUT 120)
endif()

# The C++ service example (examples/service.cpp): a server process and a client process.
if(TARGET example_cpp_service)
  add_test(NAME example_cpp_service COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/svc/examples_svc_test.sh
    cpp $<TARGET_FILE_DIR:example_cpp_service>)
  set_tests_properties(example_cpp_service PROPERTIES TIMEOUT 120)
endif()
