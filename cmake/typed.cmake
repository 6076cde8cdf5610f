# Typed messages (docs/TYPED.md): the generator, the shipped .msg definitions, the CMake helper.
set(ZCAST_MSGGEN ${PROJECT_SOURCE_DIR}/tools/zcast-msggen)
set(ZCAST_MSG_DIR ${PROJECT_SOURCE_DIR}/msg)
include(${PROJECT_SOURCE_DIR}/cmake/ZcastMsggen.cmake)

# Every type zcast ships (msg/), generated for `target`, and a header listing their tables
# (ZCAST_SHIPPED_TYPES in zcast_shipped_types.h): the tool, the bridge and the Python module keep
# no list of their own.
file(GLOB ZCAST_SHIPPED_MSGS CONFIGURE_DEPENDS RELATIVE ${ZCAST_MSG_DIR} ${ZCAST_MSG_DIR}/*/msg/*.msg)
set(ZCAST_SHIPPED_TYPES)
foreach(m ${ZCAST_SHIPPED_MSGS})
  string(REGEX REPLACE "^([^/]+)/msg/([^/]+)\\.msg$" "\\1/\\2" t ${m})
  list(APPEND ZCAST_SHIPPED_TYPES ${t})
endforeach()
# The services zcast ships (msg/<pkg>/srv/*.srv), as pkg/srv/Name: ZCAST_SHIPPED_SERVICES there too.
file(GLOB ZCAST_SHIPPED_SRVS CONFIGURE_DEPENDS RELATIVE ${ZCAST_MSG_DIR} ${ZCAST_MSG_DIR}/*/srv/*.srv)
list(TRANSFORM ZCAST_SHIPPED_SRVS REPLACE "\\.srv$" "" OUTPUT_VARIABLE ZCAST_SHIPPED_SERVICES)
function(zcast_use_shipped_types target)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_msgs)
  zcast_generate_messages(${target} TYPES ${ZCAST_SHIPPED_TYPES} ${ZCAST_SHIPPED_SERVICES}
    OUTPUT_DIR ${out})
  set(script ${PROJECT_SOURCE_DIR}/tools/msggen/shipped_types.py)
  set(files)
  foreach(m ${ZCAST_SHIPPED_MSGS} ${ZCAST_SHIPPED_SRVS})
    list(APPEND files ${ZCAST_MSG_DIR}/${m})
  endforeach()
  add_custom_command(OUTPUT ${out}/zcast_shipped_types.h
    COMMAND ${ZCAST_MSGGEN_PYTHON} ${script} ${ZCAST_MSG_DIR} ${out}/zcast_shipped_types.h
    DEPENDS ${script} ${files} VERBATIM)
  target_sources(${target} PRIVATE ${out}/zcast_shipped_types.h)
endfunction()

install(PROGRAMS tools/zcast-msggen DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES tools/msggen/loader.py tools/msggen/rihs01.py tools/msggen/model.py
  tools/msggen/emit_c.py tools/msggen/msg_text.py tools/msggen/defaults.py tools/msggen/emit_lib.py
  tools/msggen/emit_srv.py tools/msggen/emit_cpp.py DESTINATION ${CMAKE_INSTALL_DATADIR}/zcast/msggen)
install(DIRECTORY msg/ DESTINATION ${CMAKE_INSTALL_DATADIR}/zcast/msg FILES_MATCHING PATTERN "*.msg"
  PATTERN "*.srv")
# The package config itself (find_package) is written by the top-level CMakeLists.txt.
install(FILES cmake/ZcastMsggen.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/zcast)
