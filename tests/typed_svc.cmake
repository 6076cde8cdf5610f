# Typed services (issue 23, branch svc-typed): .srv through zcast-msggen, service RIHS01 hashes
# against ROS 2's, request/response views and loans.
add_test(NAME svc_typed_hashes COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/typed/srvgen_test.sh
  ${PROJECT_SOURCE_DIR})
set_tests_properties(svc_typed_hashes PROPERTIES TIMEOUT 300)

set(ZT_SVC_TYPES std_srvs/srv/SetBool std_srvs/srv/Trigger std_srvs/srv/Empty
  example_interfaces/srv/AddTwoInts zcast_test/srv/Config)
function(zt_svc_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE zcast pthread)
  target_compile_options(${name} PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes -Wno-conversion)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
  zcast_generate_messages(${name} TYPES ${ZT_SVC_TYPES} ROOTS ${CMAKE_CURRENT_SOURCE_DIR}/typed/msg)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
endfunction()
zt_svc_test(typed_srv ${CMAKE_CURRENT_SOURCE_DIR}/typed/test_typed_srv.c)
