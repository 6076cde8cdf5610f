# The C++ layer's server and client room entries in the executor (tests/svc/test_cpp_svc_room.cpp),
# built with the C++ test's strict warnings (zt_cpp_test, tests/cpp.cmake).
if(CMAKE_CXX_COMPILER)
  zt_cpp_test(cpp_svc_room ${CMAKE_CURRENT_SOURCE_DIR}/svc/test_cpp_svc_room.cpp)
endif()
