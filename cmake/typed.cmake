# Typed messages (docs/TYPED.md): the generator, the shipped .msg definitions, the CMake helper.
set(ZCAST_MSGGEN ${PROJECT_SOURCE_DIR}/tools/zcast-msggen)
set(ZCAST_MSG_DIR ${PROJECT_SOURCE_DIR}/msg)
include(${PROJECT_SOURCE_DIR}/cmake/ZcastMsggen.cmake)

install(PROGRAMS tools/zcast-msggen DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES tools/msggen/loader.py tools/msggen/rihs01.py tools/msggen/model.py
  tools/msggen/emit_c.py DESTINATION ${CMAKE_INSTALL_DATADIR}/zcast/msggen)
install(DIRECTORY msg/ DESTINATION ${CMAKE_INSTALL_DATADIR}/zcast/msg FILES_MATCHING PATTERN "*.msg")
# The package config itself (find_package) is written by the top-level CMakeLists.txt.
install(FILES cmake/ZcastMsggen.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/zcast)
