# Publish marks in C++ (loan::set_mark, publisher::last_mark), built like the C++ layer's own test
# (zt_cpp_test, tests/cpp.cmake).
if(CMAKE_CXX_COMPILER)
  zt_cpp_test(cpp_mark ${CMAKE_CURRENT_SOURCE_DIR}/cpp/test_cpp_mark.cpp)
endif()
