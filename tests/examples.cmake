# Every example runs as it would for a user: publishers and subscribers as separate processes, the
# output checked by tests/examples_test.sh.
foreach(ex subscriber waitset executor epoll history workers)
  add_test(NAME example_${ex} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/examples_test.sh ${ex}
           $<TARGET_FILE_DIR:example_publisher>)
  set_tests_properties(example_${ex} PROPERTIES TIMEOUT 60)
endforeach()
if(TARGET example_cpp)
  add_test(NAME example_cpp COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/examples_test.sh cpp
           $<TARGET_FILE_DIR:example_publisher>)
  set_tests_properties(example_cpp PROPERTIES TIMEOUT 60)
endif()
