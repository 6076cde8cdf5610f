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
