# The API reference builds from the header comments without a single doxygen warning (every public
# name documented). Once per `make test`: not in the sanitizer stages, which change no comment.
if(NOT ZCAST_SANITIZE)
  add_test(NAME docs COMMAND ${PROJECT_SOURCE_DIR}/scripts/docs.sh ${CMAKE_BINARY_DIR}/docs)
  set_tests_properties(docs PROPERTIES TIMEOUT 120)
endif()
