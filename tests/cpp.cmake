# The C++ layer's test, -std=c++17 -Wall -Wextra -Werror (whatever ZCAST_WERROR says), plus the
# stricter warnings some users build with, so the header stays clean under them too.
if(CMAKE_CXX_COMPILER)
  add_executable(test_cpp ${CMAKE_CURRENT_SOURCE_DIR}/test_cpp.cpp)
  target_link_libraries(test_cpp PRIVATE zcast)
  target_compile_options(test_cpp PRIVATE -Wall -Wextra -Werror -Wshadow -Wpedantic
    -Wconversion -Wsign-conversion -Wold-style-cast)
  add_test(NAME cpp COMMAND test_cpp)
  set_tests_properties(cpp PROPERTIES TIMEOUT 120)
endif()
