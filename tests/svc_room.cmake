# Services waiting for room (docs/SERVICES.md "Waiting for room"): tests/svc_room/test_*.c, one
# executable each, registered as the layer tests are (tests/CMakeLists.txt).
file(GLOB ZT_SVC_ROOM_TESTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/svc_room/test_*.c)
foreach(src ${ZT_SVC_ROOM_TESTS})
  get_filename_component(exe ${src} NAME_WE)
  string(REGEX REPLACE "^test_" "" name ${exe})
  add_executable(${exe} ${src})
  target_link_libraries(${exe} PRIVATE zcast pthread dl)
  target_compile_options(${exe} PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes -Wno-conversion)
  target_compile_definitions(${exe} PRIVATE _GNU_SOURCE)
  target_include_directories(${exe} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  add_test(NAME ${name} COMMAND ${exe})
  set_tests_properties(${name} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()
