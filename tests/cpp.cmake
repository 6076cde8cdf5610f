# The C++ layer's test, -std=c++17 -Wall -Wextra -Werror (whatever ZCAST_WERROR says), plus the
# stricter warnings some users build with, so the header stays clean under them too. zt_cpp_test
# builds another C++ test so (tests/cpp_mark.cmake: modules are included in name order).
if(CMAKE_CXX_COMPILER)
  function(zt_cpp_test name source)
    add_executable(test_${name} ${source})
    target_link_libraries(test_${name} PRIVATE zcast)
    target_compile_options(test_${name} PRIVATE -Wall -Wextra -Werror -Wshadow -Wpedantic
      -Wconversion -Wsign-conversion -Wold-style-cast)
    add_test(NAME ${name} COMMAND test_${name})
    set_tests_properties(${name} PROPERTIES TIMEOUT 120)
  endfunction()
  zt_cpp_test(cpp ${CMAKE_CURRENT_SOURCE_DIR}/test_cpp.cpp)
endif()
