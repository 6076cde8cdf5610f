# Typed messages (tests/typed/): generator checks, round trips, fuzzed reader views, two processes.
set(ZT_TYPED ${CMAKE_CURRENT_SOURCE_DIR}/typed)
set(ZT_TYPED_TYPES builtin_interfaces/Time std_msgs/Empty std_msgs/String std_msgs/Header
  sensor_msgs/Image sensor_msgs/PointCloud2 sensor_msgs/Imu zcast_test/Corner zcast_test/Nested
  zcast_test/Fixed)

function(zt_typed_test name)
  add_executable(${name} ${ARGN})
  target_link_libraries(${name} PRIVATE zcast pthread)
  target_compile_options(${name} PRIVATE ${ZCAST_WARNINGS} -Wno-missing-prototypes -Wno-conversion)
  target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
  zcast_generate_messages(${name} TYPES ${ZT_TYPED_TYPES} ROOTS ${ZT_TYPED}/msg)
endfunction()

zt_typed_test(test_typed_roundtrip ${ZT_TYPED}/test_typed_roundtrip.c)
add_test(NAME typed_roundtrip COMMAND test_typed_roundtrip)
set_tests_properties(typed_roundtrip PROPERTIES TIMEOUT 600)

add_test(NAME typed_msggen COMMAND ${ZT_TYPED}/msggen_test.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(typed_msggen PROPERTIES TIMEOUT 300)

zt_typed_test(test_typed_pubsub ${ZT_TYPED}/test_typed_pubsub.c)
add_test(NAME typed_pubsub COMMAND test_typed_pubsub)
set_tests_properties(typed_pubsub PROPERTIES TIMEOUT 300)

# Fuzzed reader views: the corpus is replayed by every test run (any compiler); with clang,
# `cmake --build <dir> --target fuzz_typed` fuzzes for ZCAST_FUZZ_SECONDS.
zt_typed_test(typed_fuzz_replay ${ZT_TYPED}/fuzz_cdr.c ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay.c)
set_target_properties(typed_fuzz_replay PROPERTIES COMPILE_DEFINITIONS "") # replay.c sets _GNU_SOURCE
target_compile_definitions(typed_fuzz_replay PRIVATE ZCAST_FUZZ_CORPUS="${ZT_TYPED}/corpus")
add_test(NAME typed_fuzz_replay COMMAND typed_fuzz_replay)
set_tests_properties(typed_fuzz_replay PROPERTIES TIMEOUT 300)
zt_typed_test(typed_fuzz_seeds ${ZT_TYPED}/fuzz_seeds.c)
set_target_properties(typed_fuzz_seeds PROPERTIES EXCLUDE_FROM_ALL ON)
if(CMAKE_C_COMPILER_ID MATCHES "Clang")
  list(TRANSFORM ZCAST_SOURCES PREPEND ${PROJECT_SOURCE_DIR}/ OUTPUT_VARIABLE ZT_TYPED_LIB_SOURCES)
  add_executable(fuzz_typed EXCLUDE_FROM_ALL ${ZT_TYPED}/fuzz_cdr.c ${ZT_TYPED_LIB_SOURCES})
  target_include_directories(fuzz_typed PRIVATE ${PROJECT_SOURCE_DIR}/include ${ZCAST_LAYER_INCLUDES})
  target_compile_definitions(fuzz_typed PRIVATE _GNU_SOURCE)
  target_compile_options(fuzz_typed PRIVATE -fsanitize=fuzzer,address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer -g)
  target_link_options(fuzz_typed PRIVATE -fsanitize=fuzzer,address,undefined)
  target_link_libraries(fuzz_typed PRIVATE pthread)
  zcast_generate_messages(fuzz_typed TYPES ${ZT_TYPED_TYPES} ROOTS ${ZT_TYPED}/msg)
  add_custom_target(fuzz_typed_run
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/fuzz-typed-work
    COMMAND fuzz_typed -max_total_time=${ZCAST_FUZZ_SECONDS} -timeout=30 -print_final_stats=1
      -artifact_prefix=${CMAKE_CURRENT_BINARY_DIR}/fuzz-typed- ${CMAKE_CURRENT_BINARY_DIR}/fuzz-typed-work
      ${ZT_TYPED}/corpus
    DEPENDS fuzz_typed USES_TERMINAL)
endif()

# Conformance against Cyclone DDS (Debian cyclonedds-dev, cyclonedds-tools: scripts/deps.sh test).
find_program(ZT_IDLC idlc)
find_library(ZT_DDSC ddsc)
if(ZT_IDLC AND ZT_DDSC)
  set(ZT_CONF ${ZT_TYPED}/conformance)
  set(ZT_CYC ${CMAKE_CURRENT_BINARY_DIR}/cyclone)
  set(ZT_CYC_TYPES builtin_interfaces/Time std_msgs/Empty std_msgs/String std_msgs/Header
    sensor_msgs/Image sensor_msgs/PointField sensor_msgs/PointCloud2 sensor_msgs/Imu
    geometry_msgs/Vector3 geometry_msgs/Quaternion zcast_test/Corner zcast_test/Nested zcast_test/Fixed)
  set(ZT_CYC_C)
  foreach(t ${ZT_CYC_TYPES})
    string(REPLACE "/" "/msg/" p ${t})
    list(APPEND ZT_CYC_C ${ZT_CYC}/c/${p}.c)
  endforeach()
  file(GLOB_RECURSE ZT_ALL_MSGS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/msg/*.msg ${ZT_TYPED}/msg/*.msg)
  add_custom_command(OUTPUT ${ZT_CYC_C}
    COMMAND ${ZT_CONF}/cyclone_gen.sh ${PROJECT_SOURCE_DIR} ${ZT_CYC} ${ZT_CYC_TYPES}
    DEPENDS ${ZT_CONF}/cyclone_gen.sh ${ZT_ALL_MSGS} ${PROJECT_SOURCE_DIR}/tools/zcast-msggen
    COMMENT "Cyclone DDS types for the conformance test" VERBATIM)
  add_library(zt_cyclone_side OBJECT ${ZT_CONF}/cyclone_side.c ${ZT_CYC_C})
  target_include_directories(zt_cyclone_side PRIVATE ${ZT_CYC}/c ${ZT_CONF})
  set_target_properties(zt_cyclone_side PROPERTIES C_EXTENSIONS ON) # Cyclone's headers use asm
  zt_typed_test(test_typed_conformance ${ZT_CONF}/test_conformance.c $<TARGET_OBJECTS:zt_cyclone_side>)
  target_link_libraries(test_typed_conformance PRIVATE ${ZT_DDSC})
  add_test(NAME typed_conformance COMMAND test_typed_conformance)
  set_tests_properties(typed_conformance PROPERTIES TIMEOUT 900)
else()
  message(STATUS "Cyclone DDS (idlc, libddsc) not found: typed_conformance test not built")
endif()

if(NOT ZCAST_SANITIZE) # as tests/install.cmake: the user project has no sanitizer runtime
  add_test(NAME typed_install COMMAND ${ZT_TYPED}/install_typed_test.sh ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR})
  set_tests_properties(typed_install PROPERTIES TIMEOUT 300)
endif()

zt_typed_test(typed_cli_pub ${ZT_TYPED}/typed_cli_pub.c)
add_test(NAME typed_cli COMMAND ${ZT_TYPED}/typed_cli_test.sh $<TARGET_FILE:zcast_cli>
  $<TARGET_FILE:typed_cli_pub>)
set_tests_properties(typed_cli PROPERTIES TIMEOUT 120)
