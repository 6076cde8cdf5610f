# Hostile-memory fuzzing (tests/fuzz/). Always: fuzz_replay, which runs the fuzz target over every
# file of the checked-in corpus with the normal compiler (part of `make test`). With clang: the
# libFuzzer target fuzz_segment and `cmake --build <dir> --target fuzz` (ZCAST_FUZZ_SECONDS, 60).
set(ZCAST_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
add_executable(fuzz_replay ${ZCAST_FUZZ_DIR}/replay.c ${ZCAST_FUZZ_DIR}/fuzz_segment.c)
target_link_libraries(fuzz_replay PRIVATE zcast_static pthread)
target_compile_definitions(fuzz_replay PRIVATE ZCAST_FUZZ_CORPUS="${ZCAST_FUZZ_DIR}/corpus")
add_test(NAME fuzz_replay COMMAND fuzz_replay)
set_tests_properties(fuzz_replay PROPERTIES TIMEOUT 300)

if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  set(ZCAST_FUZZ_SECONDS 60 CACHE STRING "Budget of the fuzz target, in seconds")
  list(TRANSFORM ZCAST_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/ OUTPUT_VARIABLE ZCAST_FUZZ_LIB_SOURCES)
  add_executable(fuzz_segment EXCLUDE_FROM_ALL ${ZCAST_FUZZ_DIR}/fuzz_segment.c ${ZCAST_FUZZ_LIB_SOURCES})
  target_include_directories(fuzz_segment PRIVATE ${PROJECT_SOURCE_DIR}/include ${ZCAST_LAYER_INCLUDES})
  target_compile_definitions(fuzz_segment PRIVATE _GNU_SOURCE ZCAST_POISON)
  target_compile_options(fuzz_segment PRIVATE -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  target_link_options(fuzz_segment PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_segment PRIVATE pthread)
  # Fuzzes into a scratch corpus seeded from the checked-in one (which it never modifies).
  add_custom_target(fuzz
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/fuzz-work
    COMMAND fuzz_segment -max_total_time=${ZCAST_FUZZ_SECONDS} -timeout=30 -print_final_stats=1
      -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz- ${CMAKE_CURRENT_BINARY_DIR}/fuzz-work
      ${ZCAST_FUZZ_DIR}/corpus
    DEPENDS fuzz_segment USES_TERMINAL)
endif()
