# Typed benchmark (bench/typed_image.c): needs zcast-msggen (python3-rosidl) and Cyclone DDS for
# the "standard copy" row (scripts/deps.sh bench installs both).
find_program(ZB_IDLC idlc)
find_library(ZB_DDSC ddsc)
if(ZB_IDLC AND ZB_DDSC)
  set(ZB_CYC ${CMAKE_CURRENT_BINARY_DIR}/cyclone)
  set(ZB_CYC_C ${ZB_CYC}/c/sensor_msgs/msg/Image.c ${ZB_CYC}/c/std_msgs/msg/Header.c
    ${ZB_CYC}/c/builtin_interfaces/msg/Time.c)
  add_custom_command(OUTPUT ${ZB_CYC_C}
    COMMAND ${PROJECT_SOURCE_DIR}/tests/typed/conformance/cyclone_gen.sh ${PROJECT_SOURCE_DIR}
      ${ZB_CYC} sensor_msgs/Image
    DEPENDS ${PROJECT_SOURCE_DIR}/tests/typed/conformance/cyclone_gen.sh
    COMMENT "Cyclone DDS types for the typed benchmark" VERBATIM)
  add_library(zb_typed_cyclone OBJECT typed_cyclone.c ${ZB_CYC_C})
  target_include_directories(zb_typed_cyclone PRIVATE ${ZB_CYC}/c ${CMAKE_CURRENT_SOURCE_DIR})
  set_target_properties(zb_typed_cyclone PROPERTIES C_EXTENSIONS ON)
  target_compile_options(zb_typed_cyclone PRIVATE -O2)
  add_executable(zcast-bench-typed typed_image.c $<TARGET_OBJECTS:zb_typed_cyclone>)
  target_link_libraries(zcast-bench-typed PRIVATE zcast ${ZB_DDSC})
  target_compile_options(zcast-bench-typed PRIVATE -O2 -Wall -Wextra)
  zcast_generate_messages(zcast-bench-typed TYPES sensor_msgs/Image)
else()
  message(STATUS "zcast bench: Cyclone DDS not found, typed benchmark skipped")
endif()
