# The C++ typed layer (include/zcast/typed.hpp, the C++ views zcast-msggen emits): built with the
# strict warnings of tests/cpp.cmake and no pragma around the generated headers, so both stay clean
# under them (g++ here, clang++ in the TSan stage).
if(CMAKE_CXX_COMPILER)
  add_executable(test_cpp_typed ${CMAKE_CURRENT_SOURCE_DIR}/typed/test_cpp_typed.cpp)
  target_link_libraries(test_cpp_typed PRIVATE zcast)
  target_compile_options(test_cpp_typed PRIVATE -Wall -Wextra -Werror -Wshadow -Wpedantic
    -Wconversion -Wsign-conversion -Wold-style-cast)
  zcast_generate_messages(test_cpp_typed TYPES geometry_msgs/Quaternion geometry_msgs/Vector3
    std_msgs/String zcast_test/Corner zcast_test/Defaults zcast_test/Fixed zcast_test/Nested
    ROOTS ${CMAKE_CURRENT_SOURCE_DIR}/typed/msg)
  add_test(NAME cpp_typed COMMAND test_cpp_typed)
  set_tests_properties(cpp_typed PROPERTIES TIMEOUT 120)
endif()
if(TARGET example_cpp_typed)
  add_test(NAME example_cpp_typed COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/examples_test.sh cpp_typed
    $<TARGET_FILE_DIR:example_cpp_typed>)
  set_tests_properties(example_cpp_typed PROPERTIES TIMEOUT 60)
endif()
