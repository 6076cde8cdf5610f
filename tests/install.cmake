# The installed copy, built against with pkg-config. Not in sanitizer builds: the examples are
# compiled without the sanitizer runtime the installed library would then need.
if(NOT ZCAST_SANITIZE)
  add_test(NAME install COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(install PROPERTIES TIMEOUT 300) # a full build of the installed copy: ~124 s on a loaded 2-core machine
endif()
