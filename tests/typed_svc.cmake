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
endfunction()
zt_svc_test(typed_srv ${CMAKE_CURRENT_SOURCE_DIR}/typed/test_typed_srv.c)
add_test(NAME typed_srv COMMAND typed_srv)
set_tests_properties(typed_srv PROPERTIES TIMEOUT 300)

# Type libraries carry services (zcast_services, zcast_services_find).
zcast_add_type_library(zcast_test_srv_types TYPES zcast_test/srv/Config example_interfaces/srv/Trigger
  ROOTS ${CMAKE_CURRENT_SOURCE_DIR}/typed/msg NO_INSTALL)
set_target_properties(zcast_test_srv_types PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/typed_srv_types_dir)
zt_svc_test(typed_srv_lib ${CMAKE_CURRENT_SOURCE_DIR}/typed/test_typed_srv_lib.c)
add_dependencies(typed_srv_lib zcast_test_srv_types)
add_test(NAME typed_srv_lib COMMAND typed_srv_lib $<TARGET_FILE_DIR:zcast_test_srv_types>)
set_tests_properties(typed_srv_lib PROPERTIES TIMEOUT 300)

# Typed clients and servers over the services runtime; mismatched service types refused.
zt_svc_test(typed_srv_call ${CMAKE_CURRENT_SOURCE_DIR}/typed/test_typed_srv_call.c)
add_test(NAME typed_srv_call COMMAND typed_srv_call)
set_tests_properties(typed_srv_call PROPERTIES TIMEOUT 300)
