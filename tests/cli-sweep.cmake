# Branch cli-sweep. Every zcast command and option fed bad values (issue 25: exit status, one
# "ARGUMENT: what" line, no crash, nothing published).
add_test(NAME cli_sweep COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/cli_sweep/cli_sweep_test.py
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE_DIR:zcast_test_types>)
set_tests_properties(cli_sweep PROPERTIES TIMEOUT 120)

# Services in zcast list, top and doctor (issue 23; members from tests/svc_tools/svc_tools_peer.c).
add_executable(svc_tools_peer ${CMAKE_CURRENT_SOURCE_DIR}/svc_tools/svc_tools_peer.c)
target_link_libraries(svc_tools_peer PRIVATE zcast)
target_compile_options(svc_tools_peer PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes)
add_test(NAME svc_tools COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/svc_tools/svc_tools_test.sh
  $<TARGET_FILE:zcast_cli> $<TARGET_FILE:svc_tools_peer>)
set_tests_properties(svc_tools PROPERTIES TIMEOUT 120)
